/**
 * The C source of svcbase's SQLite extension `svc_budget`: a time limit per statement on one
 * connection, so a read that runs too long is interrupted (`SQLITE_INTERRUPT`) instead of holding
 * its thread. better-sqlite3 exposes neither `sqlite3_interrupt` nor a progress handler (it is
 * built with `SQLITE_OMIT_PROGRESS_CALLBACK`); an extension loaded into a connection gets the
 * connection's handle and can do it itself.
 *
 * - `sqlite3_trace_v2` notes when each statement starts (`SQLITE_TRACE_STMT`; its trigger
 *   sub-programs, whose text starts with `--`, do not restart the clock) and ends
 *   (`SQLITE_TRACE_PROFILE`). With `reads` set, only read-only statements are timed: a write
 *   interrupted inside a transaction would roll the whole transaction back.
 * - One watchdog thread per process sleeps until the earliest deadline of a running statement
 *   (not at all while none runs; a statement whose deadline comes sooner wakes it) and calls `sqlite3_interrupt` (thread-safe) on a connection
 *   whose statement is past it. The checks and the interrupt happen under one mutex with the
 *   start and end marks, so only the statement that overran is stopped.
 * - `svc_budget(ms [, reads])` sets the connection's limit (0: none) and answers the number of
 *   statements it has interrupted so far.
 *
 * Kept as a string so it ships inside `dist/` (compiled by `budget-extension.ts`, linked with
 * `-z nodelete`: SQLite unloads an extension when the last connection that loaded it closes, and
 * the watchdog thread runs in its code).
 */
export const BUDGET_EXTENSION_SOURCE = String.raw`
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

typedef struct Budget {
  sqlite3 *db;
  sqlite3_int64 limit_ns;
  /* When the watchdog looks at the running statement next. */
  sqlite3_int64 deadline_ns;
  /* When it started; its thread's CPU clock (valid with has_clock). */
  sqlite3_int64 started_ns;
  clockid_t cpu_clock;
  int has_clock;
  /* The CPU time of that thread, and the time, when the watchdog last looked (0: not yet). */
  sqlite3_int64 mark_cpu_ns;
  sqlite3_int64 mark_ns;
  sqlite3_int64 interrupted;
  int reads_only;
  int timing;
  struct Budget *next;
} Budget;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static Budget *budgets = 0;
static int watchdog_started = 0;
/* When the watchdog wakes next: 0 while it waits for a statement to time. */
static sqlite3_int64 watchdog_wakes_ns = 0;

static sqlite3_int64 now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (sqlite3_int64)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The CPU time a thread's CPU clock has counted, or -1. */
static sqlite3_int64 cpu_ns(clockid_t clock) {
  struct timespec ts;
  if (clock_gettime(clock, &ts) != 0) return -1;
  return (sqlite3_int64)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A statement runs past its limit when its thread ran at least half of the last quarter of it
   (the watchdog samples the thread's CPU clock at three quarters of the limit, then at the
   limit), or once WALL_FACTOR times the limit has passed in all: a thread the machine did not
   run (a loaded machine, a statement waiting on I/O) gets more time, up to that. Sampling in the
   watchdog keeps the statements themselves free of system calls. */
#define WALL_FACTOR 4

static void *watchdog(void *unused) {
  (void)unused;
  pthread_mutex_lock(&lock);
  for (;;) {
    sqlite3_int64 now = now_ns();
    sqlite3_int64 next = 0;
    for (Budget *b = budgets; b; b = b->next) {
      if (!b->timing) continue;
      if (b->deadline_ns <= now) {
        sqlite3_int64 wall = now - b->started_ns;
        sqlite3_int64 cpu = b->has_clock ? cpu_ns(b->cpu_clock) : -1;
        int over = wall >= WALL_FACTOR * b->limit_ns;
        if (!over && b->mark_ns && wall >= b->limit_ns) {
          /* ran at least half of the window since the last look (no CPU clock: assume so) */
          over = cpu < 0 || b->mark_cpu_ns < 0 || 2 * (cpu - b->mark_cpu_ns) >= now - b->mark_ns;
        }
        if (over) {
          b->timing = 0;
          b->interrupted++;
          sqlite3_interrupt(b->db);
          continue;
        }
        b->mark_cpu_ns = cpu;
        b->mark_ns = now;
        b->deadline_ns = wall < b->limit_ns ? b->started_ns + b->limit_ns : now + b->limit_ns / 4;
      }
      if (!next || b->deadline_ns < next) next = b->deadline_ns;
    }
    watchdog_wakes_ns = next;
    if (!next) {
      pthread_cond_wait(&wake, &lock);
    } else {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      sqlite3_int64 wait = next - now + 200000;
      until.tv_sec += wait / 1000000000LL;
      until.tv_nsec += wait % 1000000000LL;
      if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
      }
      pthread_cond_timedwait(&wake, &lock, &until);
    }
  }
  return 0;
}

static int on_trace(unsigned type, void *ctx, void *p, void *x) {
  Budget *b = (Budget *)ctx;
  if (b->limit_ns <= 0) return 0;
  if (type == SQLITE_TRACE_STMT) {
    const char *text = (const char *)x;
    if (text && text[0] == '-' && text[1] == '-') return 0;
    if (b->reads_only && !sqlite3_stmt_readonly((sqlite3_stmt *)p)) return 0;
    clockid_t clock = CLOCK_MONOTONIC;
    int has_clock = pthread_getcpuclockid(pthread_self(), &clock) == 0;
    pthread_mutex_lock(&lock);
    b->cpu_clock = clock;
    b->has_clock = has_clock;
    b->mark_ns = 0;
    b->started_ns = now_ns();
    b->deadline_ns = b->started_ns + b->limit_ns - b->limit_ns / 4;
    b->timing = 1;
    if (!watchdog_wakes_ns || b->deadline_ns < watchdog_wakes_ns) pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
  } else if (type == SQLITE_TRACE_PROFILE && b->timing) {
    pthread_mutex_lock(&lock);
    b->timing = 0;
    pthread_mutex_unlock(&lock);
  }
  return 0;
}

static void set_budget(sqlite3_context *c, int n, sqlite3_value **v) {
  Budget *b = (Budget *)sqlite3_user_data(c);
  pthread_mutex_lock(&lock);
  if (n >= 1) b->limit_ns = (sqlite3_int64)(sqlite3_value_double(v[0]) * 1e6);
  if (n >= 2) b->reads_only = sqlite3_value_int(v[1]) != 0;
  b->timing = 0;
  sqlite3_int64 count = b->interrupted;
  pthread_mutex_unlock(&lock);
  sqlite3_result_int64(c, count);
}

static void drop_budget(void *p) {
  Budget *b = (Budget *)p;
  pthread_mutex_lock(&lock);
  for (Budget **at = &budgets; *at; at = &(*at)->next) {
    if (*at == b) {
      *at = b->next;
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  sqlite3_free(b);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_extension_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api)
  (void)err;
  Budget *b = (Budget *)sqlite3_malloc(sizeof(Budget));
  if (!b) return SQLITE_NOMEM;
  b->db = db;
  b->limit_ns = 0;
  b->deadline_ns = 0;
  b->started_ns = 0;
  b->has_clock = 0;
  b->mark_cpu_ns = -1;
  b->mark_ns = 0;
  b->interrupted = 0;
  b->reads_only = 0;
  b->timing = 0;
  int rc = sqlite3_create_function_v2(db, "svc_budget", -1, SQLITE_UTF8, b, set_budget, 0, 0, drop_budget);
  if (rc != SQLITE_OK) {
    sqlite3_free(b);
    return rc;
  }
  pthread_mutex_lock(&lock);
  b->next = budgets;
  budgets = b;
  if (!watchdog_started) {
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&thread, &attr, watchdog, 0) == 0) watchdog_started = 1;
    pthread_attr_destroy(&attr);
  }
  pthread_mutex_unlock(&lock);
  if (!watchdog_started) return SQLITE_ERROR;
  sqlite3_trace_v2(db, SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE, on_trace, b);
  return SQLITE_OK;
}
`
