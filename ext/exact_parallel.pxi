# The exact solver, part 2 of 6: threads. A task runs on n threads at once, then all
# join; no pool outlives a call, so a fork of the process (the web server's children)
# never inherits a running thread.

cdef extern from *:
    """
    #include <pthread.h>

    /* Run fn(ctx, t, nthreads) for t = 0 .. nthreads - 1, t = 0 on the calling thread, the
       others on fresh POSIX threads (no pool survives the call, so fork stays safe);
       returns when all are done. A thread that cannot start runs on the caller. */
    typedef void (*palace_task_fn)(void* ctx, int t, int nthreads);
    typedef struct { palace_task_fn fn; void* ctx; int t, n; } palace_task;
    static void* palace_task_main(void* a) {
        palace_task* k = (palace_task*)a; k->fn(k->ctx, k->t, k->n); return NULL;
    }
    static void palace_parallel(int nthreads, palace_task_fn fn, void* ctx) {
        pthread_t th[64]; palace_task tk[64]; int ok[64]; int t;
        if (nthreads > 64) nthreads = 64;
        for (t = 1; t < nthreads; t++) {
            tk[t].fn = fn; tk[t].ctx = ctx; tk[t].t = t; tk[t].n = nthreads;
            ok[t] = pthread_create(&th[t], NULL, palace_task_main, &tk[t]) == 0;
        }
        fn(ctx, 0, nthreads);
        for (t = 1; t < nthreads; t++) {
            if (ok[t]) pthread_join(th[t], NULL); else fn(ctx, t, nthreads);
        }
    }
    """
    ctypedef void (*palace_task_fn)(void* ctx, int t, int nthreads) noexcept nogil
    void palace_parallel(int nthreads, palace_task_fn fn, void* ctx) noexcept nogil
