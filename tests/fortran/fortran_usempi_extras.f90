! use mpi: the bindings written by hand beyond the first ones, with
! INTEGER handles. Error handlers of a file and of a session (each records
! the handle and the error's class), a data representation registered with
! MPI_CONVERSION_FUNCTION_NULL and an extent function (which
! MPI_File_set_view calls), MPI_SIZEOF of intrinsic types (scalars and
! arrays) and MPI_F_SYNC_REG. A failing check prints
! "fortran_usempi_extras: rank R: FAIL: what" and aborts.
module fortran_usempi_extras_cb
  use mpi
  implicit none
  integer :: seen_handle = -1, seen_class = -1, extent_calls = 0
contains
  subroutine record_error(handle, error_code)
    integer :: handle, error_code, e
    seen_handle = handle
    call MPI_Error_class(error_code, seen_class, e)
  end subroutine

  subroutine native_extent(datatype, extent, extra_state, ierror)
    integer :: datatype, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state, lb
    extent_calls = extent_calls + 1
    call MPI_Type_get_extent(datatype, lb, extent, ierror)
    if (extra_state /= 7) extent = -1
  end subroutine
end module

program fortran_usempi_extras
  use mpi
  use fortran_usempi_extras_cb
  implicit none
  character(len=*), parameter :: prog = 'fortran_usempi_extras'
  integer :: rank, np, ierr, n, eh, session, fh, v(3), w(3)
  integer(kind=2) :: i2
  real(kind=8) :: d(2, 3)
  complex :: c(4)
  character(len=64) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  call MPI_Sizeof(i2, n, ierr)
  if (ierr /= MPI_SUCCESS .or. n /= 2) call fail('MPI_SIZEOF of INTEGER(KIND=2)')
  call MPI_Sizeof(d, n, ierr)
  if (n /= 8) call fail('MPI_SIZEOF of a REAL(KIND=8) rank-2 array')
  call MPI_Sizeof(c, n, ierr)
  if (n /= 8) call fail('MPI_SIZEOF of a COMPLEX array')
  call MPI_Sizeof(rank, n, ierr)
  if (n /= 4) call fail('MPI_SIZEOF of an INTEGER')

  v = [1, 2, 3] + rank
  call MPI_Allreduce(v, w, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_F_sync_reg(w)
  if (w(1) /= np + np * (np - 1) / 2) call fail('data around MPI_F_SYNC_REG')

  call MPI_Session_create_errhandler(record_error, eh, ierr)
  call MPI_Session_init(MPI_INFO_NULL, eh, session, ierr)
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Session_call_errhandler(session, MPI_ERR_OTHER, ierr)
  if (seen_class /= MPI_ERR_OTHER .or. seen_handle /= session) &
    call fail('session error handler: not the session or not MPI_ERR_OTHER')
  call MPI_Session_finalize(session, ierr)

  if (rank == 0) call unique_path(prog, path)
  call MPI_Bcast(path, len(path), MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
  call MPI_File_open(MPI_COMM_WORLD, path, ior(MPI_MODE_CREATE, ior(MPI_MODE_RDWR, &
                     MPI_MODE_DELETE_ON_CLOSE)), MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_File_open')
  call MPI_File_create_errhandler(record_error, eh, ierr)
  call MPI_File_set_errhandler(fh, eh, ierr)
  call MPI_Errhandler_free(eh, ierr)
  seen_class = -1
  call MPI_File_call_errhandler(fh, MPI_ERR_IO, ierr)
  if (seen_class /= MPI_ERR_IO .or. seen_handle /= fh) &
    call fail('file error handler: not the file or not MPI_ERR_IO')
  call MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN, ierr)

  call MPI_Register_datarep('faro_usempi_native', MPI_CONVERSION_FUNCTION_NULL, &
                            MPI_CONVERSION_FUNCTION_NULL, native_extent, 7_MPI_ADDRESS_KIND, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_REGISTER_DATAREP')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'faro_usempi_native', &
                         MPI_INFO_NULL, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_FILE_SET_VIEW refused the registered representation')
  if (extent_calls == 0) call fail('the Fortran extent function was not called')
  call MPI_File_write_at(fh, 3_MPI_OFFSET_KIND * rank, v, 3, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  w = -1
  call MPI_File_read_at(fh, 3_MPI_OFFSET_KIND * rank, w, 3, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  if (any(w /= v)) call fail('data through the registered representation')
  call MPI_File_close(fh, ierr)

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', prog // ': ok'
contains
  include 'unique_path.inc'
  include 'fail.inc'
end program
