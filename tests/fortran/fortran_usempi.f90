! use mpi: init, rank and size, nonblocking messages around a ring with
! their statuses (MPI_Waitall; MPI_Waitany and MPI_Waitsome's indices from
! 1), MPI_STATUS_IGNORE, bcast, allreduce (MPI_SUM on INTEGER and DOUBLE
! PRECISION, MPI_IN_PLACE), a vector datatype and its contents, MPI_BOTTOM
! with absolute addresses, an attribute key with MPI_COMM_DUP_FN, MPI_Info_create_env, a reduction and an error
! handler written in Fortran, an error returned under MPI_ERRORS_RETURN,
! names, finalize. A failing check prints "fortran_usempi: rank R: FAIL:
! what" and aborts.
program fortran_usempi
  use mpi
  implicit none
  character(len=*), parameter :: prog = 'fortran_usempi'
  integer :: ierr, rank, np, next, prev, i, n, cls, rlen, vtype, isum
  integer :: sbuf(10), rbuf(10), reqs(2), sts(MPI_STATUS_SIZE, 2), idx(2)
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub, addr
  double precision :: dsum, dbuf(4)
  character(len=MPI_MAX_ERROR_STRING) :: msg
  character(len=MPI_MAX_OBJECT_NAME) :: name
  logical :: flag
  integer :: myop, dupc, eh, seen_comm, seen_class, ni, na, nd, comb, ints(3), types(1), info
  integer(kind=MPI_ADDRESS_KIND) :: addrs(1)
  integer :: key, dupc2
  common /errh_seen/ seen_comm, seen_class
  external :: add_plus_one, record_error

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)

  sbuf = [(100 * rank + i, i = 1, 10)]
  rbuf = -1
  call MPI_Irecv(rbuf, 10, MPI_INTEGER, prev, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, 10, MPI_INTEGER, next, 7 + rank, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, sts, ierr)
  if (ierr /= MPI_SUCCESS) call fail('MPI_Waitall')
  if (any(reqs /= MPI_REQUEST_NULL)) call fail('requests not freed by MPI_Waitall')
  if (sts(MPI_SOURCE, 1) /= prev) call fail('status source')
  if (sts(MPI_TAG, 1) /= 7 + prev) call fail('status tag')
  call MPI_Get_count(sts(:, 1), MPI_INTEGER, n, ierr)
  if (n /= 10) call fail('MPI_Get_count is not 10')
  if (any(rbuf /= [(100 * prev + i, i = 1, 10)])) call fail('ring data')
  ! Fortran counts indices from 1: MPI_Waitany and MPI_Waitsome say 1 or 2
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, 1, MPI_INTEGER, next, 5, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitany(2, reqs, i, sts(:, 1), ierr)
  if (i /= 1 .and. i /= 2) call fail('MPI_Waitany index not 1 or 2')
  if (reqs(i) /= MPI_REQUEST_NULL) call fail('MPI_Waitany freed another request')
  call MPI_Waitsome(2, reqs, n, idx, sts, ierr)
  if (n /= 1 .or. idx(1) /= 3 - i) call fail('MPI_Waitsome index not the other request')
  call MPI_Waitany(2, reqs, i, MPI_STATUS_IGNORE, ierr)
  if (i /= MPI_UNDEFINED) call fail('MPI_Waitany on null requests: index not MPI_UNDEFINED')

  call MPI_Send(dble(rank), 1, MPI_DOUBLE_PRECISION, next, 1, MPI_COMM_WORLD, ierr)
  call MPI_Recv(dsum, 1, MPI_DOUBLE_PRECISION, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (dsum /= dble(prev)) call fail('send/recv of a DOUBLE PRECISION')

  if (rank == 0) dbuf = [1d0, 2d0, 3d0, 4d0]
  call MPI_Bcast(dbuf, 4, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)
  if (any(dbuf /= [1d0, 2d0, 3d0, 4d0])) call fail('bcast')

  call MPI_Allreduce(rank + 1, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (isum /= np * (np + 1) / 2) call fail('INTEGER sum')
  call MPI_Allreduce(0.5d0 * rank, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (abs(dsum - 0.25d0 * np * (np - 1)) > 1d-12) call fail('DOUBLE PRECISION sum')
  dbuf = rank
  call MPI_Allreduce(MPI_IN_PLACE, dbuf, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (any(dbuf /= 0.5d0 * np * (np - 1))) call fail('MPI_IN_PLACE sum')

  ! a reduction written in Fortran: each step adds its two inputs and 1
  call MPI_Op_create(add_plus_one, .true., myop, ierr)
  call MPI_Allreduce(10 * rank, isum, 1, MPI_INTEGER, myop, MPI_COMM_WORLD, ierr)
  if (isum /= 5 * np * (np - 1) + np - 1) call fail('MPI_Op_create: user reduction result')
  call MPI_Op_free(myop, ierr)
  if (myop /= MPI_OP_NULL) call fail('MPI_Op_free left the handle')

  call MPI_Type_vector(5, 1, 2, MPI_INTEGER, vtype, ierr)
  call MPI_Type_commit(vtype, ierr)
  call MPI_Type_get_envelope(vtype, ni, na, nd, comb, ierr)
  if (comb /= MPI_COMBINER_VECTOR .or. ni /= 3 .or. na /= 0 .or. nd /= 1) &
      call fail('MPI_Type_get_envelope of a vector')
  call MPI_Type_get_contents(vtype, 3, 0, 1, ints, addrs, types, ierr)
  if (any(ints /= [5, 1, 2]) .or. types(1) /= MPI_INTEGER) call fail('MPI_Type_get_contents of a vector')
  sbuf = [(1000 * rank + i, i = 1, 10)]
  rbuf = -1
  call MPI_Sendrecv(sbuf, 1, vtype, next, 3, rbuf, 5, MPI_INTEGER, prev, 3, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (any(rbuf(1:5) /= [(1000 * prev + 2 * i - 1, i = 1, 5)])) call fail('vector type data')
  call MPI_Type_free(vtype, ierr)
  ! absolute addresses: a struct type at sbuf(2)'s address, sent from MPI_BOTTOM
  call MPI_Get_address(sbuf(2), addr, ierr)
  call MPI_Type_create_struct(1, [3], [addr], [MPI_INTEGER], vtype, ierr)
  call MPI_Type_commit(vtype, ierr)
  rbuf = -1
  call MPI_Sendrecv(MPI_BOTTOM, 1, vtype, next, 4, rbuf, 3, MPI_INTEGER, prev, 4, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (any(rbuf(1:3) /= [(1000 * prev + i, i = 2, 4)])) call fail('MPI_BOTTOM with an absolute type')
  call MPI_Type_free(vtype, ierr)

  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  if (.not. flag .or. tag_ub < 32767) call fail('MPI_TAG_UB attribute')
  ! an attribute key with the predefined MPI_COMM_DUP_FN: a duplicate keeps the value
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dupc, ierr)
  call MPI_Comm_set_attr(dupc, key, 42_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(dupc, dupc2, ierr)
  call MPI_Comm_get_attr(dupc2, key, tag_ub, flag, ierr)
  if (.not. flag .or. tag_ub /= 42) call fail('MPI_COMM_DUP_FN did not copy the attribute')
  call MPI_Comm_free(dupc2, ierr)
  call MPI_Comm_free(dupc, ierr)
  call MPI_Comm_free_keyval(key, ierr)

  call MPI_Info_create_env(info, ierr)
  if (ierr /= MPI_SUCCESS .or. info == MPI_INFO_NULL) call fail('MPI_Info_create_env')
  call MPI_Info_free(info, ierr)
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, rlen, ierr)
  if (name /= 'MPI_COMM_WORLD' .or. rlen /= 14) call fail('name of MPI_COMM_WORLD: ' // name)

  ! an error handler written in Fortran: called with the communicator and the code
  call MPI_Comm_dup(MPI_COMM_WORLD, dupc, ierr)
  call MPI_Comm_create_errhandler(record_error, eh, ierr)
  call MPI_Comm_set_errhandler(dupc, eh, ierr)
  call MPI_Errhandler_free(eh, ierr)
  seen_comm = -1
  seen_class = -1
  call MPI_Send(sbuf, 1, MPI_INTEGER, np, 0, dupc, ierr)
  if (seen_comm /= dupc) call fail('the Fortran error handler did not get the communicator')
  if (seen_class /= MPI_ERR_RANK) call fail('the Fortran error handler did not get MPI_ERR_RANK')
  call MPI_Comm_free(dupc, ierr)

  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(sbuf, 1, MPI_INTEGER, np, 0, MPI_COMM_WORLD, ierr)
  if (ierr == MPI_SUCCESS) call fail('a send to rank np succeeded')
  call MPI_Error_class(ierr, cls, i)
  if (cls /= MPI_ERR_RANK) call fail('the error class is not MPI_ERR_RANK')
  call MPI_Error_string(ierr, msg, rlen, i)
  if (rlen <= 0 .or. len_trim(msg) /= rlen) call fail('MPI_Error_string: ' // msg)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'fortran_usempi: ', np, ' processes: OK'
  call MPI_Finalize(ierr)
contains
  include 'fail.inc'
end program

! The user reduction: inoutvec = invec + inoutvec + 1 (a wrong datatype
! handle gives -1000, which the caller's check catches).
subroutine add_plus_one(invec, inoutvec, len, datatype)
  use mpi
  implicit none
  integer, intent(in) :: len, datatype
  integer, intent(in) :: invec(len)
  integer, intent(inout) :: inoutvec(len)
  inoutvec = invec + inoutvec + 1
  if (datatype /= MPI_INTEGER) inoutvec = -1000
end subroutine

! The user error handler: records the communicator and the error's class.
subroutine record_error(comm, code)
  use mpi
  implicit none
  integer :: comm, code, ierr, seen_comm, seen_class
  common /errh_seen/ seen_comm, seen_class
  seen_comm = comm
  call MPI_Error_class(code, seen_class, ierr)
end subroutine
