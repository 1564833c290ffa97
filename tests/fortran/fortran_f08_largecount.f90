! use mpi_f08's large-count forms (MPI-4.0 section 19.2): the same generic
! names called with INTEGER(KIND=MPI_COUNT_KIND) counts reach the C _c
! functions. Messages around a ring (MPI_Send, MPI_Recv, MPI_Isend,
! MPI_Irecv, MPI_Get_count into a wide count), MPI_Bcast, MPI_Allreduce,
! MPI_Pack/MPI_Unpack with a wide position, a contiguous datatype of
! 3,000,000,000 bytes whose MPI_Type_size (wide) is that (no int could hold
! it), MPI_File_write_at/read_at, and the default INTEGER forms beside them
! in the same program. A program that passes an INTEGER(KIND=8) count did
! not compile before the large-count forms existed. A failing check prints
! "fortran_f08_largecount: rank R: FAIL: what" and aborts.
program fortran_f08_largecount
  use mpi_f08
  implicit none
  character(len=*), parameter :: prog = 'fortran_f08_largecount'
  integer(kind=MPI_COUNT_KIND), parameter :: ten = 10, four = 4
  integer(kind=MPI_COUNT_KIND) :: n, size, pos, packsize
  integer(kind=MPI_OFFSET_KIND) :: offset
  integer :: rank, np, next, prev, i, isize, ierr
  integer :: sbuf(10), rbuf(10), sums(4)
  double precision :: d(4)
  character(len=1) :: packed(256)
  character(len=64) :: path
  type(MPI_Status) :: st
  type(MPI_Request) :: reqs(2)
  type(MPI_Datatype) :: big, four_ints
  type(MPI_File) :: fh

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)

  ! point to point around the ring, blocking then nonblocking
  sbuf = [(100 * rank + i, i = 1, 10)]
  rbuf = -1
  if (mod(rank, 2) == 0) then
    call MPI_Send(sbuf, ten, MPI_INTEGER, next, 5, MPI_COMM_WORLD)
    call MPI_Recv(rbuf, ten, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, st)
  else
    call MPI_Recv(rbuf, ten, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, st)
    call MPI_Send(sbuf, ten, MPI_INTEGER, next, 5, MPI_COMM_WORLD)
  end if
  n = -1
  call MPI_Get_count(st, MPI_INTEGER, n)
  if (n /= 10) call fail('MPI_Get_count with an MPI_COUNT_KIND count is not 10')
  if (any(rbuf /= [(100 * prev + i, i = 1, 10)])) call fail('ring data (MPI_Send/MPI_Recv)')
  rbuf = -1
  call MPI_Irecv(rbuf, four, MPI_INTEGER, prev, 6, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(sbuf, four, MPI_INTEGER, next, 6, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  if (any(rbuf(1:4) /= [(100 * prev + i, i = 1, 4)]) .or. rbuf(5) /= -1) &
    call fail('ring data (MPI_Isend/MPI_Irecv)')

  ! collectives: the wide forms, then the default INTEGER ones
  d = 0
  if (rank == 0) d = [1.5d0, 2.5d0, 3.5d0, 4.5d0]
  call MPI_Bcast(d, four, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  if (any(d /= [1.5d0, 2.5d0, 3.5d0, 4.5d0])) call fail('MPI_Bcast with an MPI_COUNT_KIND count')
  call MPI_Allreduce(sbuf, sums, four, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (any(sums /= [(100 * np * (np - 1) / 2 + np * i, i = 1, 4)])) &
    call fail('MPI_Allreduce with an MPI_COUNT_KIND count')
  call MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  if (sums(1) /= 100 * np * (np - 1) / 2 + np) call fail('MPI_Allreduce with a default INTEGER count')

  ! datatypes: a size beyond an int's range comes back whole
  call MPI_Type_contiguous(3000000000_MPI_COUNT_KIND, MPI_BYTE, big)
  call MPI_Type_size(big, size)
  if (size /= 3000000000_MPI_COUNT_KIND) call fail('MPI_Type_size of 3e9 bytes (MPI_COUNT_KIND)')
  call MPI_Type_size(big, isize)
  if (isize /= MPI_UNDEFINED) call fail('MPI_Type_size of 3e9 bytes in a default INTEGER is not MPI_UNDEFINED')
  call MPI_Type_free(big)
  call MPI_Type_contiguous(four, MPI_INTEGER, four_ints)
  call MPI_Type_commit(four_ints)
  call MPI_Type_size(four_ints, size)
  if (size /= 16) call fail('MPI_Type_size of four INTEGERs')

  ! pack and unpack with a wide position
  call MPI_Pack_size(1_MPI_COUNT_KIND, four_ints, MPI_COMM_WORLD, packsize)
  if (packsize < 16 .or. packsize > 256) call fail('MPI_Pack_size (MPI_COUNT_KIND)')
  pos = 0
  call MPI_Pack(sbuf, 1_MPI_COUNT_KIND, four_ints, packed, 256_MPI_COUNT_KIND, pos, MPI_COMM_WORLD)
  if (pos /= 16) call fail('MPI_Pack position (MPI_COUNT_KIND) is not 16')
  rbuf = -1
  pos = 0
  call MPI_Unpack(packed, 256_MPI_COUNT_KIND, pos, rbuf, 1_MPI_COUNT_KIND, four_ints, MPI_COMM_WORLD)
  if (pos /= 16 .or. any(rbuf(1:4) /= sbuf(1:4))) call fail('MPI_Unpack (MPI_COUNT_KIND)')
  call MPI_Type_free(four_ints)

  ! a file: each rank writes its ten integers at its own offset, reads the next rank's
  if (rank == 0) call unique_path(prog, path)
  call MPI_Bcast(path, len(path), MPI_CHARACTER, 0, MPI_COMM_WORLD)
  call MPI_File_open(MPI_COMM_WORLD, path, ior(MPI_MODE_CREATE, ior(MPI_MODE_RDWR, &
                     MPI_MODE_DELETE_ON_CLOSE)), MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_File_open')
  offset = 40_MPI_OFFSET_KIND * rank
  call MPI_File_write_at(fh, offset, sbuf, ten, MPI_INTEGER, st)
  call MPI_Get_count(st, MPI_INTEGER, n)
  if (n /= 10) call fail('MPI_File_write_at (MPI_COUNT_KIND) wrote not 10 integers')
  call MPI_Barrier(MPI_COMM_WORLD)
  rbuf = -1
  call MPI_File_read_at(fh, 40_MPI_OFFSET_KIND * next, rbuf, ten, MPI_INTEGER, st)
  if (any(rbuf /= [(100 * next + i, i = 1, 10)])) call fail('MPI_File_read_at (MPI_COUNT_KIND)')
  call MPI_File_close(fh)

  call MPI_Finalize()
  if (rank == 0) print '(a)', prog // ': ok'
contains
  include 'unique_path.inc'
  include 'fail.inc'
end program
