/* SPDX-License-Identifier: BSD-3-Clause */
/* Suite unit: a secondary's wait for its answer on a request line
 * (reply_wait.h), against a real socket pair standing for the primary:
 * the answer, a refusal, a wrong answer, no answer (the deadline, also
 * when the line's timeout is shorter than the wait, and with signals
 * arriving meanwhile). Only lower bounds of time are checked. */
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dvs_cunit.h"
#include "channel.h"
#include "ipc_proto.h"
#include "peer_requests.h"
#include "reply_wait.h"

using namespace dvs;

namespace {

using Clock = std::chrono::steady_clock;

long ms_since(Clock::time_point t0)
{
	return static_cast<long>(
		std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
}

/* A line whose receive timeout is @ms already, as after a wait of @ms
 * answered in time; @prim is the primary's end. */
void line_with_timeout(ReplyLine *line, Fd *prim, int ms)
{
	ReplyMsg rep;

	CU_ASSERT_EQUAL_FATAL(channel_line_pair(&line->fd, prim), 0);
	CU_ASSERT_EQUAL_FATAL(answer_status(*prim, 1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(await_reply(*line, 1, ms, &rep), 0);
	CU_ASSERT_EQUAL(line->timeout_ms, ms);
}

void test_answer_and_refusals()
{
	ReplyLine line;
	Fd prim;
	ReplyMsg rep;

	line_with_timeout(&line, &prim, 1000);
	CU_ASSERT_EQUAL(answer_status(prim, 2, -ENOENT), 0);
	CU_ASSERT_EQUAL(await_reply(line, 2, 1000, &rep), 0);
	CU_ASSERT_EQUAL(rep.seq, 2u);
	CU_ASSERT_EQUAL(rep.status, -ENOENT);
	/* The answer to another request: not taken for this one. */
	CU_ASSERT_EQUAL(answer_status(prim, 7, 0), 0);
	CU_ASSERT_EQUAL(await_reply(line, 3, 1000, &rep), -EBADMSG);
	/* The primary refusing the line (sequence 0): its status. */
	CU_ASSERT_EQUAL(answer_status(prim, 0, -EMFILE), 0);
	CU_ASSERT_EQUAL(await_reply(line, 4, 1000, &rep), -EMFILE);
	/* The primary's end gone: the line says so, at once. */
	prim.reset();
	CU_ASSERT(await_reply(line, 5, 5000, &rep) < 0);
}

/* The line's timeout (50 ms, from the wait before) is shorter than this
 * wait (5 s): an answer at 200 ms is still taken, and the timeout is
 * only lowered by waits, never raised for them. */
void test_answer_after_a_shorter_timeout()
{
	ReplyLine line;
	Fd prim;
	ReplyMsg rep;

	line_with_timeout(&line, &prim, 50);
	std::thread late([&] {
		usleep(200 * 1000);
		(void)answer_status(prim, 2, 0);
	});
	const auto t0 = Clock::now();
	CU_ASSERT_EQUAL(await_reply(line, 2, 5000, &rep), 0);
	late.join();
	CU_ASSERT(ms_since(t0) >= 150);
	CU_ASSERT_EQUAL(rep.seq, 2u);
	/* Set again for what was left after the 50 ms ran out. */
	CU_ASSERT(line.timeout_ms > 50 && line.timeout_ms < 5000);
}

/* No answer: -ETIMEDOUT, not before the wait's deadline although the
 * line's timeout is shorter; the line is shut for reading, so that an
 * answer the primary sends afterwards fails there (it then destroys what
 * it made, doc/protocol.md). */
void test_no_answer_waits_to_its_deadline()
{
	ReplyLine line;
	Fd prim;
	ReplyMsg rep;

	line_with_timeout(&line, &prim, 50);
	const auto t0 = Clock::now();
	CU_ASSERT_EQUAL(await_reply(line, 2, 300, &rep), -ETIMEDOUT);
	CU_ASSERT(ms_since(t0) >= 300);
	CU_ASSERT_EQUAL(answer_status(prim, 2, 0), -EPIPE);
}

std::atomic<int> signals{ 0 };

void on_signal(int)
{
	signals++;
}

/* Signals to the waiting thread (no SA_RESTART: each ends its
 * recvmsg() with EINTR) neither end the wait early nor turn its end into
 * -EINTR. */
void test_signals_during_the_wait()
{
	struct sigaction sa = {}, old = {};
	ReplyLine line;
	Fd prim;
	ReplyMsg rep;

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	CU_ASSERT_EQUAL_FATAL(sigaction(SIGUSR1, &sa, &old), 0);
	line_with_timeout(&line, &prim, 1000);
	const pthread_t waiter = pthread_self();
	std::atomic<bool> done{ false };
	std::thread pest([&] {
		while (!done) {
			pthread_kill(waiter, SIGUSR1);
			usleep(20 * 1000);
		}
	});
	const int before = signals;
	const auto t0 = Clock::now();
	int rc = await_reply(line, 2, 300, &rep);
	const long ms = ms_since(t0);
	done = true;
	pest.join();
	CU_ASSERT_EQUAL(rc, -ETIMEDOUT);
	CU_ASSERT(ms >= 300);
	CU_ASSERT(signals > before); /* the wait did see signals */
	CU_ASSERT_EQUAL(sigaction(SIGUSR1, &old, nullptr), 0);
}

const dvs_test_case cases[] = {
	DVS_TEST(test_answer_and_refusals),
	DVS_TEST(test_answer_after_a_shorter_timeout),
	DVS_TEST(test_no_answer_waits_to_its_deadline),
	DVS_TEST(test_signals_during_the_wait),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("reply_wait", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_reply_wait", register_tests)
