/* See include/pthread.h: blosc's thread calls, never made by a decode on one thread; reaching one is a bug. */
#include <pthread.h>

#define NEVER { __builtin_trap(); }

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) NEVER
int pthread_join(pthread_t thread, void **result) NEVER
int pthread_attr_init(pthread_attr_t *attr) NEVER
int pthread_attr_destroy(pthread_attr_t *attr) NEVER
int pthread_attr_setdetachstate(pthread_attr_t *attr, int state) NEVER
int pthread_cond_init(pthread_cond_t *cond, const void *attr) NEVER
int pthread_cond_destroy(pthread_cond_t *cond) NEVER
int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex) NEVER
int pthread_cond_broadcast(pthread_cond_t *cond) NEVER
int pthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attr, unsigned count) NEVER
int pthread_barrier_destroy(pthread_barrier_t *barrier) NEVER
int pthread_barrier_wait(pthread_barrier_t *barrier) NEVER
int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void)) NEVER

/* blosc's global context takes these around its global state; a decode with a context of its own takes none. */
int pthread_mutex_init(pthread_mutex_t *mutex, const void *attr) { return 0; }
int pthread_mutex_destroy(pthread_mutex_t *mutex) { return 0; }
int pthread_mutex_lock(pthread_mutex_t *mutex) { return 0; }
int pthread_mutex_unlock(pthread_mutex_t *mutex) { return 0; }

/* shuffle.c picks its implementation once: on one thread, a flag is all it takes. */
int pthread_once(pthread_once_t *once, void (*init)(void)) {
	if (*once == 0) {
		*once = 1;
		init();
	}
	return 0;
}
