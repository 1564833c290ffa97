! The Fortran program the build-tool tests build (installed mpifort/mpif90,
! CMake's FindMPI): every rank prints the library it runs on, as hello.c.
!   "rank R of N: Faro 0.1.0 (MPI 3.1; ...)"
program hello
  use mpi
  implicit none
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  integer :: rank, size, length, ierr
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Get_library_version(version, length, ierr)
  print '(a,i0,a,i0,2a)', 'rank ', rank, ' of ', size, ': ', version(1:length)
  call MPI_Finalize(ierr)
end program
