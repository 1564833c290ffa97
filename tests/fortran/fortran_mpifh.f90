! mpif.h, fixed form (compiled with -ffixed-form): init, rank and size, a ring of messages with
! their statuses, MPI_STATUS_IGNORE (and MPI_F_SYNC_REG), bcast, allreduce (MPI_SUM on INTEGER
! and DOUBLE PRECISION, and MPI_IN_PLACE), a vector datatype, an error
! returned under MPI_ERRORS_RETURN, finalize. A failing check prints
! "fortran_mpifh: rank R: FAIL: what" and aborts the job.
      PROGRAM MAIN
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, NEXT, PREV, I, N, CLS, RLEN
      INTEGER SBUF(10), RBUF(10), ST(MPI_STATUS_SIZE), VTYPE, ISUM
      DOUBLE PRECISION DSUM
      CHARACTER*(MPI_MAX_ERROR_STRING) MSG
      LOGICAL FLAG
      CALL MPI_INIT(IERR)
      CALL MPI_INITIALIZED(FLAG, IERR)
      IF (.NOT. FLAG) CALL FAIL(0, 'MPI_INITIALIZED is .FALSE.')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(RANK, 'MPI_COMM_SIZE')
      NEXT = MOD(RANK + 1, NP)
      PREV = MOD(RANK + NP - 1, NP)
! a ring: each sends 10 integers to the next, tag 7 + its rank
      DO I = 1, 10
         SBUF(I) = 100 * RANK + I
         RBUF(I) = -1
      END DO
      CALL MPI_SENDRECV(SBUF, 10, MPI_INTEGER, NEXT, 7 + RANK,
     &     RBUF, 10, MPI_INTEGER, PREV, MPI_ANY_TAG,
     &     MPI_COMM_WORLD, ST, IERR)
      IF (ST(MPI_SOURCE) .NE. PREV) CALL FAIL(RANK, 'status source')
      IF (ST(MPI_TAG) .NE. 7 + PREV) CALL FAIL(RANK, 'status tag')
      CALL MPI_GET_COUNT(ST, MPI_INTEGER, N, IERR)
      IF (N .NE. 10) CALL FAIL(RANK, 'MPI_GET_COUNT is not 10')
      DO I = 1, 10
         IF (RBUF(I) .NE. 100 * PREV + I) CALL FAIL(RANK, 'ring data')
      END DO
! the same with MPI_STATUS_IGNORE, to and from the neighbours
      CALL MPI_SEND(SBUF, 3, MPI_INTEGER, NEXT, 1, MPI_COMM_WORLD,
     &     IERR)
      CALL MPI_RECV(RBUF, 3, MPI_INTEGER, PREV, 1, MPI_COMM_WORLD,
     &     MPI_STATUS_IGNORE, IERR)
      CALL MPI_F_SYNC_REG(RBUF)
      IF (RBUF(3) .NE. 100 * PREV + 3) CALL FAIL(RANK, 'send/recv')
! bcast from the last rank
      IF (RANK .EQ. NP - 1) THEN
         DO I = 1, 10
            RBUF(I) = 7 * I
         END DO
      END IF
      CALL MPI_BCAST(RBUF, 10, MPI_INTEGER, NP - 1, MPI_COMM_WORLD,
     &     IERR)
      IF (RBUF(10) .NE. 70) CALL FAIL(RANK, 'bcast')
! allreduce, MPI_SUM: INTEGER, DOUBLE PRECISION, MPI_IN_PLACE
      CALL MPI_ALLREDUCE(RANK + 1, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      IF (ISUM .NE. NP * (NP + 1) / 2) CALL FAIL(RANK, 'INTEGER sum')
      CALL MPI_ALLREDUCE(0.5D0 * RANK, DSUM, 1, MPI_DOUBLE_PRECISION,
     &     MPI_SUM, MPI_COMM_WORLD, IERR)
      IF (ABS(DSUM - 0.25D0 * NP * (NP - 1)) .GT. 1D-12)
     &     CALL FAIL(RANK, 'DOUBLE PRECISION sum')
      SBUF(1) = RANK
      SBUF(2) = 1
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, SBUF, 2, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, IERR)
      IF (SBUF(1) .NE. NP - 1 .OR. SBUF(2) .NE. 1)
     &     CALL FAIL(RANK, 'MPI_IN_PLACE max')
! a vector type: every other integer of 5, around the ring
      CALL MPI_TYPE_VECTOR(5, 1, 2, MPI_INTEGER, VTYPE, IERR)
      CALL MPI_TYPE_COMMIT(VTYPE, IERR)
      DO I = 1, 10
         SBUF(I) = 1000 * RANK + I
         RBUF(I) = -1
      END DO
      CALL MPI_SENDRECV(SBUF, 1, VTYPE, NEXT, 3, RBUF, 5, MPI_INTEGER,
     &     PREV, 3, MPI_COMM_WORLD, ST, IERR)
      DO I = 1, 5
         IF (RBUF(I) .NE. 1000 * PREV + 2 * I - 1)
     &        CALL FAIL(RANK, 'vector type data')
      END DO
      CALL MPI_TYPE_FREE(VTYPE, IERR)
      IF (VTYPE .NE. MPI_DATATYPE_NULL)
     &     CALL FAIL(RANK, 'MPI_TYPE_FREE left the handle')
! an error returned: a send to rank NP
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &     IERR)
      CALL MPI_SEND(SBUF, 1, MPI_INTEGER, NP, 0, MPI_COMM_WORLD, IERR)
      IF (IERR .EQ. MPI_SUCCESS) CALL FAIL(RANK, 'send to rank NP')
      CALL MPI_ERROR_CLASS(IERR, CLS, I)
      IF (CLS .NE. MPI_ERR_RANK) CALL FAIL(RANK, 'class not ERR_RANK')
      CALL MPI_ERROR_STRING(IERR, MSG, RLEN, I)
      IF (RLEN .LE. 0 .OR. RLEN .GT. LEN(MSG)) CALL FAIL(RANK, 'len')
      IF (MSG(RLEN+1:RLEN+1) .NE. ' ') CALL FAIL(RANK, 'not padded')
! MPI_WTIME, a function mpif.h declares EXTERNAL
      IF (MPI_WTIME() .LE. 0D0) CALL FAIL(RANK, 'MPI_WTIME')
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) PRINT '(A,I0,A)', 'fortran_mpifh: ', NP,
     &     ' processes: OK'
      CALL MPI_FINALIZE(IERR)
      END

      SUBROUTINE FAIL(RANK, WHAT)
      INCLUDE 'mpif.h'
      INTEGER RANK, IERR
      CHARACTER*(*) WHAT
      PRINT '(A,I0,2A)', 'fortran_mpifh: rank ', RANK, ': FAIL: ', WHAT
      CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END
