/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SIGINT and SIGTERM quit the pmd as they quit testpmd: the session ends
 * and the usual close runs (coordinated destroy in a primary, goodbye in
 * a secondary). Both signals are blocked in every thread (EAL's threads
 * inherit the mask set before rte_eal_init()) and taken only where the
 * main thread waits: for input, in ppoll() with them unblocked, so a
 * signal that comes just before the wait is not lost, and between the
 * commands of a script.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

#include "pmd.h"

static sigset_t quit_set;      /* SIGINT, SIGTERM */
static sigset_t waiting_mask;  /* the mask while waiting: they get through */
static volatile sig_atomic_t quit_signal;

static void on_quit_signal(int sig)
{
	quit_signal = sig;
	pmd_quit = 1;
}

void pmd_signals_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_quit_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&quit_set);
	sigaddset(&quit_set, SIGINT);
	sigaddset(&quit_set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &quit_set, &waiting_mask);
	sigdelset(&waiting_mask, SIGINT);
	sigdelset(&waiting_mask, SIGTERM);
}

int pmd_wait_input(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (!pmd_quit) {
		int n = ppoll(&p, 1, NULL, &waiting_mask);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
	}
	return 0;
}

void pmd_signals_poll(void)
{
	const struct timespec now = { 0, 0 };

	(void)ppoll(NULL, 0, &now, &waiting_mask);
}

int pmd_quit_signal(void)
{
	return quit_signal;
}
