! use mpi: MPI_Comm_spawn from Fortran. Every rank of MPI_COMM_WORLD spawns
! two copies of this program (root 0) with the arguments 'hello' and
! 'two words' (Fortran's argv: CHARACTER strings ending with a blank one),
! then two more through MPI_Comm_spawn_multiple (argv(count, *));
! the children check their command line and MPI_Comm_get_parent, each sends
! its rank to the parents' root, which checks the sum; both sides
! disconnect. A failing check prints "fortran_spawn: rank R: FAIL: what"
! and aborts.
program fortran_spawn
  use mpi
  implicit none
  character(len=*), parameter :: prog = 'fortran_spawn'
  integer :: ierr, rank, parent, inter, i, got, total, errcodes(2)
  character(len=256) :: exe, arg
  character(len=16) :: argv(3), argv2(2, 3)
  character(len=256) :: cmds(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_get_parent(parent, ierr)
  if (parent /= MPI_COMM_NULL) then
    ! a child: its arguments, then its rank to the parents' root
    if (command_argument_count() /= 2) call fail('a child has not 2 arguments')
    call get_command_argument(1, arg)
    if (arg /= 'hello') call fail('first argument: ' // trim(arg))
    call get_command_argument(2, arg)
    if (arg /= 'two words') call fail('second argument: ' // trim(arg))
    call MPI_Send(rank, 1, MPI_INTEGER, 0, 5, parent, ierr)
    call MPI_Comm_disconnect(parent, ierr)
    call MPI_Finalize(ierr)
    stop
  end if
  call get_command_argument(0, exe)
  argv(1) = 'hello'
  argv(2) = 'two words'
  argv(3) = ' '
  call MPI_Comm_spawn(exe, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errcodes, ierr)
  if (ierr /= MPI_SUCCESS .or. any(errcodes /= MPI_SUCCESS)) call fail('MPI_Comm_spawn')
  call MPI_Comm_remote_size(inter, i, ierr)
  if (i /= 2) call fail('the children are not 2')
  call collect('MPI_Comm_spawn')
  call MPI_Comm_disconnect(inter, ierr)

  ! the same through MPI_Comm_spawn_multiple: two programs of one process each,
  ! row i of argv(2, 3) holding program i's arguments
  cmds = exe
  do i = 1, 2
    argv2(i, :) = argv
  end do
  call MPI_Comm_spawn_multiple(2, cmds, argv2, [1, 1], [MPI_INFO_NULL, MPI_INFO_NULL], 0, &
                               MPI_COMM_WORLD, inter, MPI_ERRCODES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Comm_spawn_multiple')
  call MPI_Comm_remote_size(inter, i, ierr)
  if (i /= 2) call fail('MPI_Comm_spawn_multiple: the children are not 2')
  call collect('MPI_Comm_spawn_multiple')
  if (rank == 0) print '(a)', 'fortran_spawn: children of MPI_Comm_spawn and MPI_Comm_spawn_multiple: OK'
  call MPI_Comm_disconnect(inter, ierr)
  call MPI_Finalize(ierr)
contains
  ! the parents' root receives the two children's ranks (0 and 1) on inter
  subroutine collect(how)
    character(len=*), intent(in) :: how
    if (rank /= 0) return
    total = 0
    do i = 1, 2
      call MPI_Recv(got, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, inter, MPI_STATUS_IGNORE, ierr)
      total = total + got
    end do
    if (total /= 1) call fail(how // ': the children''s ranks do not add up to 1')
  end subroutine

  include 'fail.inc'
end program
