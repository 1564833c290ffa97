! use mpi_f08: the derived handle types and TYPE(MPI_Status), ierror left
! out, init, rank and size, messages around a ring with their statuses,
! MPI_STATUS_IGNORE, bcast, allreduce (MPI_SUM on INTEGER and DOUBLE
! PRECISION, MPI_IN_PLACE), callbacks written in Fortran (a reduction, error
! handlers of a communicator and a window, attribute copy and delete, a
! generalized request), window attributes, memory from MPI_Win_allocate and
! MPI_Alloc_mem (TYPE(C_PTR)), MPI_Neighbor_alltoallw on a ring, a vector
! datatype, a non-contiguous section refused, an error returned under
! MPI_ERRORS_RETURN, finalize. A failing check prints "fortran_usempif08:
! rank R: FAIL: what" and aborts.

! The user callbacks (module procedures: an internal procedure passed as an
! argument would need an executable stack): the error handlers record the
! communicator or window and the error's class.
module fortran_usempif08_errh
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  type(MPI_Comm) :: seen_comm
  type(MPI_Win) :: seen_win
  integer :: seen_class = -1, deleted = 0, grequest_freed = 0
contains
  ! generalized request callbacks: the status says tag extra_state
  subroutine grequest_query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    status%MPI_SOURCE = MPI_UNDEFINED
    status%MPI_TAG = int(extra_state)
    status%MPI_ERROR = MPI_SUCCESS
    ierror = MPI_SUCCESS
  end subroutine

  subroutine grequest_free(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    grequest_freed = grequest_freed + 1
    ierror = MPI_SUCCESS
  end subroutine

  subroutine grequest_cancel(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS
  end subroutine

  ! attribute callbacks: a copy holds the value plus 1; deletions are counted
  subroutine copy_plus_one(oldcomm, comm_keyval, extra_state, attribute_val_in, &
                           attribute_val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    attribute_val_out = attribute_val_in + 1 + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine

  subroutine count_delete(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deleted = deleted + 1
    ierror = MPI_SUCCESS
  end subroutine

  ! inoutvec = invec + inoutvec + 1 (a wrong datatype gives -1000)
  subroutine add_plus_one(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a + b + 1
    if (datatype /= MPI_INTEGER) b = -1000
  end subroutine

  subroutine record_win_error(win, error_code)
    type(MPI_Win) :: win
    integer :: error_code
    seen_win = win
    call MPI_Error_class(error_code, seen_class)
  end subroutine

  subroutine record_error(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    seen_comm = comm
    call MPI_Error_class(error_code, seen_class)
  end subroutine
end module

program fortran_usempif08
  use mpi_f08
  use fortran_usempif08_errh
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: ierr, rank, np, next, prev, i, n, cls, rlen, isum
  integer :: sbuf(10), rbuf(10), grid(4, 3)
  type(MPI_Status) :: st
  type(MPI_Request) :: reqs(2), greq
  type(MPI_Datatype) :: vtype
  type(MPI_Comm) :: dup, dup2, ring
  integer :: key
  type(MPI_Op) :: myop
  type(MPI_Errhandler) :: eh
  type(MPI_Win) :: win
  integer :: wbuf(4)
  integer(kind=MPI_ADDRESS_KIND) :: aval
  type(c_ptr) :: base
  integer, pointer :: wmem(:)
  logical :: flag
  double precision :: dsum, dbuf(4), t
  character(len=MPI_MAX_ERROR_STRING) :: msg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Comm_size')
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)

  sbuf = [(100 * rank + i, i = 1, 10)]
  rbuf = -1
  call MPI_Sendrecv(sbuf, 10, MPI_INTEGER, next, 7 + rank, rbuf, 10, MPI_INTEGER, prev, &
                    MPI_ANY_TAG, MPI_COMM_WORLD, st)
  if (st%MPI_SOURCE /= prev) call fail('status source')
  if (st%MPI_TAG /= 7 + prev) call fail('status tag')
  call MPI_Get_count(st, MPI_INTEGER, n)
  if (n /= 10) call fail('MPI_Get_count is not 10')
  if (any(rbuf /= [(100 * prev + i, i = 1, 10)])) call fail('ring data')

  call MPI_Irecv(dsum, 1, MPI_DOUBLE_PRECISION, prev, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(dble(rank), 1, MPI_DOUBLE_PRECISION, next, 1, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  if (reqs(1) /= MPI_REQUEST_NULL) call fail('request not freed by MPI_Waitall')
  if (dsum /= dble(prev)) call fail('isend/irecv of a DOUBLE PRECISION')

  if (rank == 0) dbuf = [1d0, 2d0, 3d0, 4d0]
  call MPI_Bcast(dbuf, 4, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  if (any(dbuf /= [1d0, 2d0, 3d0, 4d0])) call fail('bcast')

  call MPI_Allreduce(rank + 1, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (isum /= np * (np + 1) / 2) call fail('INTEGER sum')
  call MPI_Allreduce(0.5d0 * rank, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (abs(dsum - 0.25d0 * np * (np - 1)) > 1d-12) call fail('DOUBLE PRECISION sum')
  dbuf = rank
  call MPI_Allreduce(MPI_IN_PLACE, dbuf, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  if (any(dbuf /= 0.5d0 * np * (np - 1))) call fail('MPI_IN_PLACE sum')

  ! a reduction written in Fortran: each step adds its two inputs and 1
  call MPI_Op_create(add_plus_one, .true., myop)
  call MPI_Allreduce(10 * rank, isum, 1, MPI_INTEGER, myop, MPI_COMM_WORLD)
  if (isum /= 5 * np * (np - 1) + np - 1) call fail('MPI_Op_create: user reduction result')
  call MPI_Op_free(myop)
  if (myop /= MPI_OP_NULL) call fail('MPI_Op_free left the handle')

  call MPI_Type_vector(5, 1, 2, MPI_INTEGER, vtype)
  call MPI_Type_commit(vtype)
  sbuf = [(1000 * rank + i, i = 1, 10)]
  rbuf = -1
  call MPI_Sendrecv(sbuf, 1, vtype, next, 3, rbuf, 5, MPI_INTEGER, prev, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  if (any(rbuf(1:5) /= [(1000 * prev + 2 * i - 1, i = 1, 5)])) call fail('vector type data')
  call MPI_Type_free(vtype)
  if (vtype /= MPI_DATATYPE_NULL) call fail('MPI_Type_free left the handle')

  ! an error handler written in Fortran: called with the communicator and the code
  ! an attribute key with copy and delete callbacks written in Fortran
  call MPI_Comm_create_keyval(copy_plus_one, count_delete, key, 100_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_set_attr(dup, key, 5_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(dup, dup2)
  call MPI_Comm_get_attr(dup2, key, aval, flag)
  if (.not. flag .or. aval /= 106) call fail('the Fortran copy callback: attribute not 5 + 1 + 100')
  call MPI_Comm_free(dup2)
  call MPI_Comm_free(dup)
  if (deleted /= 2) call fail('the Fortran delete callback did not run twice')
  call MPI_Comm_free_keyval(key)

  ! a generalized request with callbacks written in Fortran
  call MPI_Grequest_start(grequest_query, grequest_free, grequest_cancel, 77_MPI_ADDRESS_KIND, &
                          greq)
  call MPI_Grequest_complete(greq)
  call MPI_Wait(greq, st)
  if (st%MPI_TAG /= 77) call fail('the Fortran query callback did not fill the status')
  if (grequest_freed /= 1 .or. greq /= MPI_REQUEST_NULL) call fail('the Fortran free callback')

  ! a ring as a periodic 1-D grid: MPI_Neighbor_alltoallw, whose datatype arrays
  ! are as long as the topology's degree (2 here)
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [np], [.true.], .false., ring)
  sbuf(1:2) = [10 * rank + 1, 10 * rank + 2]
  rbuf = -1
  call MPI_Neighbor_alltoallw(sbuf, [1, 1], [0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND], &
                              [MPI_INTEGER, MPI_INTEGER], rbuf, [1, 1], &
                              [0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND], [MPI_INTEGER, MPI_INTEGER], ring)
  if (rbuf(1) /= 10 * prev + 2 .or. rbuf(2) /= 10 * next + 1) call fail('MPI_Neighbor_alltoallw')
  call MPI_Comm_free(ring)

  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_create_errhandler(record_error, eh)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Errhandler_free(eh)
  call MPI_Send(sbuf, 1, MPI_INTEGER, np, 0, dup, ierr)
  if (seen_comm /= dup) call fail('the Fortran error handler did not get the communicator')
  if (seen_class /= MPI_ERR_RANK) call fail('the Fortran error handler did not get MPI_ERR_RANK')

  ! the same for a window: a put to rank np
  wbuf = 0
  call MPI_Win_create(wbuf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_create_errhandler(record_win_error, eh)
  call MPI_Win_set_errhandler(win, eh)
  call MPI_Errhandler_free(eh)
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, aval, flag)
  if (.not. flag .or. aval /= 16) call fail('MPI_WIN_SIZE attribute')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, aval, flag)
  if (.not. flag .or. aval /= 4) call fail('MPI_WIN_DISP_UNIT attribute')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, aval, flag)
  if (.not. flag .or. aval < 32767) call fail('MPI_TAG_UB attribute')
  call MPI_Win_fence(0, win)
  seen_class = -1
  call MPI_Put(sbuf, 1, MPI_INTEGER, np, 0_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
  if (seen_win /= win) call fail('the Fortran window error handler did not get the window')
  if (seen_class /= MPI_ERR_RANK) call fail('the Fortran window error handler did not get MPI_ERR_RANK')
  call MPI_Win_fence(0, win)
  call MPI_Win_free(win)
  if (win /= MPI_WIN_NULL) call fail('MPI_Win_free left the handle')
  ! memory the library allocates: MPI_Win_allocate's and MPI_Alloc_mem's TYPE(C_PTR)
  call MPI_Win_allocate(16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, base, win)
  call c_f_pointer(base, wmem, [4])
  wmem = -1
  call MPI_Win_fence(0, win)
  call MPI_Put(rank, 1, MPI_INTEGER, next, 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  if (wmem(3) /= prev .or. wmem(1) /= -1) call fail('MPI_Win_allocate memory after a put')
  call MPI_Win_free(win)
  call MPI_Alloc_mem(40_MPI_ADDRESS_KIND, MPI_INFO_NULL, base)
  call c_f_pointer(base, wmem, [10])
  wmem = 7
  call MPI_Allreduce(MPI_IN_PLACE, wmem, 10, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (any(wmem /= 7 * np)) call fail('MPI_Alloc_mem memory in an allreduce')
  call MPI_Free_mem(wmem)

  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
  call MPI_Send(sbuf, 1, MPI_INTEGER, np, 0, dup, ierr)
  if (ierr == MPI_SUCCESS) call fail('a send to rank np succeeded')
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_RANK) call fail('the error class is not MPI_ERR_RANK')
  call MPI_Error_string(ierr, msg, rlen)
  if (rlen <= 0 .or. len_trim(msg) /= rlen) call fail('MPI_Error_string: ' // msg)
  ! a row of a column-major array is not contiguous: refused, not misread
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  grid = 0
  call MPI_Bcast(grid(1, :), 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_BUFFER) call fail('a non-contiguous section was not refused')
  call MPI_Comm_free(dup)
  if (dup /= MPI_COMM_NULL) call fail('MPI_Comm_free left the handle')

  t = MPI_Wtime()
  if (t <= 0d0 .or. MPI_Wtick() <= 0d0) call fail('MPI_Wtime or MPI_Wtick not positive')
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'fortran_usempif08: ', np, ' processes: OK'
  call MPI_Finalize()
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a,i0,2a)', 'fortran_usempif08: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine
end program
