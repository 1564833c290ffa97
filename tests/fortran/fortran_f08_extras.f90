! use mpi_f08: the bindings written by hand beyond the first ones. Error
! handlers of a file and of a session (Fortran subroutines reached through
! trampolines: each records the handle and the error's class), a data
! representation registered with MPI_CONVERSION_FUNCTION_NULL and a Fortran
! extent function (which MPI_File_set_view calls) and one with a Fortran
! conversion function (refused by MPI_File_set_view, as Faro calls no
! conversion), a reduction from MPI_Op_create_c (an MPI_COUNT_KIND length),
! MPI_Sizeof of every intrinsic type (scalars and arrays) and of a derived
! type (refused), and MPI_F_sync_reg. A failing check prints
! "fortran_f08_extras: rank R: FAIL: what" and aborts.
module fortran_f08_extras_cb
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  type(MPI_File) :: seen_file
  type(MPI_Session) :: seen_session
  integer :: seen_class = -1, extent_calls = 0
contains
  subroutine record_file_error(file, error_code)
    type(MPI_File) :: file
    integer :: error_code
    seen_file = file
    call MPI_Error_class(error_code, seen_class)
  end subroutine

  subroutine record_session_error(session, error_code)
    type(MPI_Session) :: session
    integer :: error_code
    seen_session = session
    call MPI_Error_class(error_code, seen_class)
  end subroutine

  ! the native extent, from extra_state's cookie 42 only
  subroutine native_extent(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror
    integer(kind=MPI_ADDRESS_KIND) :: lb
    extent_calls = extent_calls + 1
    call MPI_Type_get_extent(datatype, lb, extent, ierror)
    if (extra_state /= 42) extent = -1
  end subroutine

  subroutine no_conversion(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    ierror = MPI_ERR_OTHER
  end subroutine

  ! inoutvec = invec + inoutvec + 1000, with an MPI_COUNT_KIND length
  subroutine add_plus_1000(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a + b + 1000
    if (datatype /= MPI_INTEGER) b = -1
  end subroutine
end module

program fortran_f08_extras
  use mpi_f08
  use fortran_f08_extras_cb
  implicit none
  character(len=*), parameter :: prog = 'fortran_f08_extras'
  type pair
    integer :: a, b
  end type
  integer :: rank, np, ierr, n, i, v(3), w(3), rbuf(3)
  integer(kind=1) :: i1
  integer(kind=2) :: i2(5)
  integer(kind=8) :: i8(2, 2)
  real :: r
  double precision :: d(3)
  complex :: c
  complex(kind=kind(1d0)) :: z
  logical :: l
  character(len=1) :: ch
  type(pair) :: p
  type(MPI_Errhandler) :: eh
  type(MPI_Session) :: session
  type(MPI_File) :: fh
  type(MPI_Op) :: op
  type(MPI_Status) :: st
  character(len=64) :: path

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)

  ! MPI_Sizeof: the byte size of one element, whatever the rank
  call MPI_Sizeof(i1, n)
  call check_size(n, 'INTEGER(KIND=1)', 1)
  call MPI_Sizeof(i2, n)
  call check_size(n, 'INTEGER(KIND=2) array', 2)
  call MPI_Sizeof(rank, n, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Sizeof returned an error for an INTEGER')
  call check_size(n, 'INTEGER', 4)
  call MPI_Sizeof(i8, n)
  call check_size(n, 'INTEGER(KIND=8) rank-2 array', 8)
  call MPI_Sizeof(r, n)
  call check_size(n, 'REAL', 4)
  call MPI_Sizeof(d, n)
  call check_size(n, 'DOUBLE PRECISION array', 8)
  call MPI_Sizeof(c, n)
  call check_size(n, 'COMPLEX', 8)
  call MPI_Sizeof(z, n)
  call check_size(n, 'COMPLEX(KIND(1D0))', 16)
  call MPI_Sizeof(l, n)
  call check_size(n, 'LOGICAL', 4)
  call MPI_Sizeof(ch, n)
  call check_size(n, 'CHARACTER', 1)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Sizeof(p, n, ierr)
  call MPI_Error_class(ierr, i)
  if (i /= MPI_ERR_ARG) call fail('MPI_Sizeof of a derived type is not MPI_ERR_ARG')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  ! MPI_F_sync_reg on a buffer a nonblocking receive filled
  v = [1, 2, 3] + 10 * rank
  call MPI_Sendrecv(v, 3, MPI_INTEGER, mod(rank + 1, np), 0, rbuf, 3, MPI_INTEGER, &
                    mod(rank + np - 1, np), 0, MPI_COMM_WORLD, st)
  call MPI_F_sync_reg(rbuf)
  if (any(rbuf /= [1, 2, 3] + 10 * mod(rank + np - 1, np))) call fail('data around MPI_F_sync_reg')

  ! a reduction written in Fortran with an MPI_COUNT_KIND length
  call MPI_Op_create_c(add_plus_1000, .true., op)
  v = [1, 2, 3]
  call MPI_Allreduce(v, w, 3, MPI_INTEGER, op, MPI_COMM_WORLD)
  if (any(w /= np * [1, 2, 3] + 1000 * (np - 1))) call fail('MPI_Op_create_c reduction')
  call MPI_Op_free(op)

  ! a session's error handler
  call MPI_Session_create_errhandler(record_session_error, eh)
  call MPI_Session_init(MPI_INFO_NULL, eh, session)
  call MPI_Errhandler_free(eh)
  seen_class = -1
  call MPI_Session_call_errhandler(session, MPI_ERR_OTHER)
  if (seen_class /= MPI_ERR_OTHER) call fail('session error handler: class not MPI_ERR_OTHER')
  if (seen_session /= session) call fail('session error handler: not the session')
  call MPI_Session_finalize(session)

  ! a file's error handler
  if (rank == 0) call unique_path(prog, path)
  call MPI_Bcast(path, len(path), MPI_CHARACTER, 0, MPI_COMM_WORLD)
  call MPI_File_open(MPI_COMM_WORLD, path, ior(MPI_MODE_CREATE, ior(MPI_MODE_RDWR, &
                     MPI_MODE_DELETE_ON_CLOSE)), MPI_INFO_NULL, fh)
  call MPI_File_create_errhandler(record_file_error, eh)
  call MPI_File_set_errhandler(fh, eh)
  call MPI_Errhandler_free(eh)
  seen_class = -1
  call MPI_File_call_errhandler(fh, MPI_ERR_IO)
  if (seen_class /= MPI_ERR_IO) call fail('file error handler: class not MPI_ERR_IO')
  if (seen_file /= fh) call fail('file error handler: not the file')
  call MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN)

  ! data representations: no conversion and the native extent, usable
  call MPI_Register_datarep('faro_f08_native', MPI_CONVERSION_FUNCTION_NULL, &
                            MPI_CONVERSION_FUNCTION_NULL, native_extent, 42_MPI_ADDRESS_KIND, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Register_datarep')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'faro_f08_native', &
                         MPI_INFO_NULL, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_File_set_view refused the registered representation')
  if (extent_calls == 0) call fail('the Fortran extent function was not called')
  v = [7, 8, 9] + rank
  call MPI_File_write_at(fh, 3_MPI_OFFSET_KIND * rank, v, 3, MPI_INTEGER, MPI_STATUS_IGNORE)
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_sync(fh)
  w = -1
  call MPI_File_read_at(fh, 3_MPI_OFFSET_KIND * rank, w, 3, MPI_INTEGER, MPI_STATUS_IGNORE)
  if (any(w /= v)) call fail('data through the registered representation')
  call MPI_Register_datarep('faro_f08_native', MPI_CONVERSION_FUNCTION_NULL, &
                            MPI_CONVERSION_FUNCTION_NULL, native_extent, 42_MPI_ADDRESS_KIND, ierr)
  call MPI_Error_class(ierr, i)
  if (i /= MPI_ERR_DUP_DATAREP) call fail('registering a name twice is not MPI_ERR_DUP_DATAREP')
  ! a conversion function arrives as one: the view is refused
  call MPI_Register_datarep('faro_f08_converted', no_conversion, no_conversion, native_extent, &
                            42_MPI_ADDRESS_KIND, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Register_datarep with conversion functions')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'faro_f08_converted', &
                         MPI_INFO_NULL, ierr)
  call MPI_Error_class(ierr, i)
  if (i /= MPI_ERR_UNSUPPORTED_DATAREP) &
    call fail('a representation with conversion functions is not MPI_ERR_UNSUPPORTED_DATAREP')
  call MPI_File_close(fh)

  call MPI_Finalize()
  if (rank == 0) print '(a)', prog // ': ok'
contains
  subroutine check_size(got, what, want)
    integer, intent(in) :: got
    character(len=*), intent(in) :: what
    integer, intent(in) :: want
    character(len=80) :: msg
    if (got /= want) then
      write (msg, '(3a,i0,a,i0)') 'MPI_Sizeof of ', what, ' is ', got, ', not ', want
      call fail(trim(msg))
    end if
  end subroutine

  include 'unique_path.inc'
  include 'fail.inc'
end program
