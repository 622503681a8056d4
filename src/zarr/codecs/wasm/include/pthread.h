/*
 * What c-blosc names of POSIX threads, for a WebAssembly build without threads: blosc only starts threads when
 * asked for more than one, which decoders.c never does, so these are declared for it to compile and defined
 * (pthread-stubs.c) to fail if ever called.
 */
#ifndef DT64_PTHREAD_SHIM_H
#define DT64_PTHREAD_SHIM_H

/* wasi-libc's sys/types.h has the types, not the functions. */
#include <sys/types.h>

#define PTHREAD_CREATE_JOINABLE 0
#define PTHREAD_BARRIER_SERIAL_THREAD (-1)
#define PTHREAD_ONCE_INIT 0

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
int pthread_join(pthread_t thread, void **result);
int pthread_attr_init(pthread_attr_t *attr);
int pthread_attr_destroy(pthread_attr_t *attr);
int pthread_attr_setdetachstate(pthread_attr_t *attr, int state);
int pthread_mutex_init(pthread_mutex_t *mutex, const void *attr);
int pthread_mutex_destroy(pthread_mutex_t *mutex);
int pthread_mutex_lock(pthread_mutex_t *mutex);
int pthread_mutex_unlock(pthread_mutex_t *mutex);
int pthread_cond_init(pthread_cond_t *cond, const void *attr);
int pthread_cond_destroy(pthread_cond_t *cond);
int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex);
int pthread_cond_broadcast(pthread_cond_t *cond);
int pthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attr, unsigned count);
int pthread_barrier_destroy(pthread_barrier_t *barrier);
int pthread_barrier_wait(pthread_barrier_t *barrier);
int pthread_once(pthread_once_t *once, void (*init)(void));
int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void));

#endif
