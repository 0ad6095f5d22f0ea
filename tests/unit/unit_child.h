/*
 * unit_child.h: runs a piece of a unit test in a forked child process.
 *
 * gex_Client_Init succeeds once per process and "not implemented yet" stubs
 * end the process, so the Check tests that touch a GEX job do it in a child
 * of their own (independent of Check's CK_FORK setting): run_child() forks,
 * unsets gexrun's variables so the child is a singleton job, captures the
 * child's stderr and returns how it ended.  Inside the child, CHILD_CHECK
 * reports a failed condition on stderr and exits with status 99.
 */
#ifndef UNIT_CHILD_H
#define UNIT_CHILD_H

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_FAIL_STATUS 99

#define CHILD_CHECK(cond) do { \
        if (!(cond)) { \
            fprintf(stderr, "CHILD FAIL at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            fflush(stderr); \
            _exit(CHILD_FAIL_STATUS); \
        } \
    } while (0)
#define CHILD_CHECK_EQ(a, b) do { \
        long long ca_ = (long long)(a), cb_ = (long long)(b); \
        if (ca_ != cb_) { \
            fprintf(stderr, "CHILD FAIL at %s:%d: %s == %s: %lld != %lld\n", __FILE__, \
                    __LINE__, #a, #b, ca_, cb_); \
            fflush(stderr); \
            _exit(CHILD_FAIL_STATUS); \
        } \
    } while (0)

struct child_result {
    int exited;        /* 1: exit status in `status`; 0: killed by signal `status` */
    int status;
    char err[16384];   /* everything the child wrote to stderr (truncated) */
};

/* Runs fn(arg) in a child as a singleton GEX job; if fn returns, the child
 * exits 0.  A child running longer than 60 s is killed (SIGALRM). */
static void run_child(void (*fn)(void *), void *arg, struct child_result *res)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDERR_FILENO);
        close(fds[1]);
        unsetenv("GEX_JOB_FD");
        unsetenv("GEX_JOB_RANK");
        unsetenv("GEX_JOB_SIZE");
        unsetenv("GEX_JOB_ID");
        alarm(60);
        fn(arg);
        fflush(stdout);
        fflush(stderr);
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    for (;;) {
        char buf[4096];
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n <= 0) break;
        size_t keep = (size_t)n;
        if (got + keep > sizeof res->err - 1) keep = sizeof res->err - 1 - got;
        memcpy(res->err + got, buf, keep);
        got += keep;
    }
    res->err[got] = 0;
    close(fds[0]);
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    res->exited = WIFEXITED(st);
    res->status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? WTERMSIG(st) : -1;
}

/* The child ran to the end (status 0); otherwise fail with its stderr. */
#define ck_assert_child_ok(res) \
    ck_assert_msg((res)->exited && (res)->status == 0, \
                  "child %s %d; its stderr:\n%s", (res)->exited ? "exited with" : "killed by signal", \
                  (res)->status, (res)->err)

/* The child ended with exit status `code` and printed `text` on stderr. */
#define ck_assert_child_exit(res, code, text) do { \
        ck_assert_msg((res)->exited && (res)->status == (code), \
                      "child %s %d, want exit status %d; its stderr:\n%s", \
                      (res)->exited ? "exited with" : "killed by signal", (res)->status, (code), \
                      (res)->err); \
        ck_assert_msg(strstr((res)->err, (text)) != NULL, \
                      "child stderr lacks \"%s\":\n%s", (text), (res)->err); \
    } while (0)

/* Runs every test of `s` (CK_NORMAL output); returns the number of failures. */
static int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}

#endif /* UNIT_CHILD_H */
