/* SPDX-License-Identifier: BSD-3-Clause */
/* Suite unit: decoding of dvshare's rte_mp messages. */
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <sys/socket.h>
#include <unistd.h>

#include "dvs_cunit.h"
#include "dvshare.h"
#include "goodbye.h"
#include "ipc_proto.h"
#include "registry_layout.h"

using namespace dvs;

namespace {

void test_attach_req_roundtrip()
{
	struct rte_mp_msg m;
	AttachReq req{ mp_hdr(), 4 }, out;
	std::string why;

	mp_pack(&m, kActAttach, req);
	m.num_fds = 1; /* the sender's pidfd */
	CU_ASSERT_STRING_EQUAL(m.name, kActAttach);
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), 0);
	CU_ASSERT_EQUAL(out.start, 4u);
	CU_ASSERT_EQUAL(out.hdr.pid, getpid());
}

void test_wrong_sizes_and_fds()
{
	struct rte_mp_msg m;
	AttachReq req{ mp_hdr(), 0 }, out;
	std::string why;

	mp_pack(&m, kActAttach, req);
	m.num_fds = 1;
	m.len_param -= 1;
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), -EBADMSG);
	mp_pack(&m, kActAttach, req);
	m.num_fds = 0; /* no pidfd: refused */
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), -EBADMSG);
	m.num_fds = 2;
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), -EBADMSG);
	mp_pack(&m, kActAttach, req);
	m.num_fds = 1;
	reinterpret_cast<AttachReq *>(m.param)->hdr.magic = 0;
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), -EBADMSG);
	mp_pack(&m, kActAttach, req);
	m.num_fds = 1;
	reinterpret_cast<AttachReq *>(m.param)->hdr.pid = 0;
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), -EBADMSG);
}

void test_version_mismatch_names_both()
{
	struct rte_mp_msg m;
	AttachReq req{ mp_hdr(), 0 }, out;
	std::string why;

	req.hdr.lib_version = (3u << 16) | (1u << 8) | 4u;
	mp_pack(&m, kActAttach, req);
	m.num_fds = 1;
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.c_str(), "3.1.4"));
	char ours[32];
	snprintf(ours, sizeof(ours), "%d.%d.%d", DVSHARE_VERSION_MAJOR,
		 DVSHARE_VERSION_MINOR, DVSHARE_VERSION_PATCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.c_str(), ours));
	/* A later protocol with a bigger message is still recognised. */
	uint8_t bigger[sizeof(AttachReq) + 16] = {};
	MpHdr h = mp_hdr();
	h.proto = kMpProto + 1;
	memcpy(bigger, &h, sizeof(h));
	memset(&m, 0, sizeof(m));
	m.len_param = sizeof(bigger);
	memcpy(m.param, bigger, sizeof(bigger));
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.c_str(), ("protocol " + std::to_string(kMpProto + 1)).c_str()));
}

void test_attach_rep_counts()
{
	struct rte_mp_msg m;
	AttachRep rep{}, out;
	std::string why;

	rep.hdr = mp_hdr();
	rep.total = 6;
	rep.start = 4;
	rep.count = 2;
	mp_pack(&m, kActAttach, rep);
	m.num_fds = 5; /* two devices and the primary's pidfd */
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), 0);
	m.num_fds = 4;
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
	/* A new peer's answer also carries its goodbye socket. */
	rep.flags = kRepByeSocket;
	mp_pack(&m, kActAttach, rep);
	m.num_fds = 6;
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), 0);
	m.num_fds = 5;
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
	rep.flags = 2; /* a flag this release does not know */
	mp_pack(&m, kActAttach, rep);
	m.num_fds = 5;
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
	rep.flags = 0;
	/* Three devices, the pidfd and the socket fill a message exactly (the
	 * protocol's own limit, whatever this DPDK's rte_mp carries). */
	CU_ASSERT_EQUAL(kDevsPerMsg * 2 + 2, static_cast<uint32_t>(kMpMaxFds));
	rep.count = kDevsPerMsg + 1; /* more than fit in a message */
	mp_pack(&m, kActAttach, rep);
	m.num_fds = 8;
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
	/* More fds than the protocol allows: refused even where rte_mp
	 * carries them (253 since DPDK 25.11). */
	m.num_fds = kMpMaxFds + 1;
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
	rep.start = 5;
	rep.count = 2; /* past the total */
	mp_pack(&m, kActAttach, rep);
	m.num_fds = 5;
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
	rep.count = 0;
	rep.status = -EPROTO;
	mp_pack(&m, kActAttach, rep);
	m.num_fds = 0; /* a refusal carries nothing */
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), 0);
	CU_ASSERT_EQUAL(out.status, -EPROTO);
	rep.status = 5;
	mp_pack(&m, kActAttach, rep);
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
	rep.status = -EPERM;
	rep.count = 1; /* a refusal naming devices */
	mp_pack(&m, kActAttach, rep);
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
}

/* The goodbye socket: only the named peer's own goodbye counts, once. */
void test_goodbye()
{
	Fd mine, theirs;
	char junk[sizeof(ByeMsg)] = {};

	CU_ASSERT_EQUAL_FATAL(bye_pair(&mine, &theirs), 0);
	CU_ASSERT_FALSE(bye_heard(mine.get(), getpid())); /* nothing said yet */
	bye_send(theirs.get());
	CU_ASSERT_TRUE(bye_heard(mine.get(), getpid()));
	CU_ASSERT_FALSE(bye_heard(mine.get(), getpid())); /* read once */
	bye_send(theirs.get());
	CU_ASSERT_FALSE(bye_heard(mine.get(), getpid() + 1)); /* another pid's */
	CU_ASSERT_EQUAL(send(theirs.get(), junk, sizeof(junk), 0), static_cast<ssize_t>(sizeof(junk)));
	CU_ASSERT_FALSE(bye_heard(mine.get(), getpid())); /* not a goodbye */
	/* Queued before the writer closed its end: still heard after. */
	bye_send(theirs.get());
	theirs.reset();
	CU_ASSERT_TRUE(bye_heard(mine.get(), getpid()));
	bye_send(-1); /* no socket: nothing to do */
	CU_ASSERT_FALSE(bye_heard(-1, getpid()));
}

void test_event_and_detach_strings()
{
	struct rte_mp_msg m;
	EventMsg ev{}, eo;
	DetachMsg dm{}, dout;
	std::string why;

	ev.hdr = mp_hdr();
	ev.event = DVSHARE_EVENT_PUBLISHED;
	strcpy(ev.ibdev, "sim0");
	strcpy(ev.name, "q0");
	mp_pack(&m, kActEvent, ev);
	CU_ASSERT_EQUAL(decode_event(m, &eo, &why), 0);
	CU_ASSERT_STRING_EQUAL(eo.name, "q0");
	memset(reinterpret_cast<EventMsg *>(m.param)->name, 'x', DVSHARE_NAME_MAX);
	CU_ASSERT_EQUAL(decode_event(m, &eo, &why), -EBADMSG);
	ev.event = 99;
	mp_pack(&m, kActEvent, ev);
	CU_ASSERT_EQUAL(decode_event(m, &eo, &why), -EBADMSG);
	dm.hdr = mp_hdr();
	memset(dm.ibdev, 'y', sizeof(dm.ibdev));
	mp_pack(&m, kActDetach, dm);
	CU_ASSERT_EQUAL(decode_detach(m, &dout, &why), -EBADMSG);
	dm.ibdev[5] = '\0';
	mp_pack(&m, kActDetach, dm);
	CU_ASSERT_EQUAL(decode_detach(m, &dout, &why), 0);
}

void test_revoke_messages()
{
	struct rte_mp_msg m;
	RevokeMsg r{}, ro;
	RevokeAck a{}, ao;
	std::string why;

	r.hdr = mp_hdr();
	strcpy(r.ibdev, "sim0");
	r.slot = 3;
	r.gen = 1;
	r.revoke_id = 9;
	mp_pack(&m, kActRevoke, r);
	CU_ASSERT_EQUAL(decode_revoke(m, &ro, &why), 0);
	CU_ASSERT_EQUAL(ro.revoke_id, 9u);
	r.gen = 0; /* generations start at 1 */
	mp_pack(&m, kActRevoke, r);
	CU_ASSERT_EQUAL(decode_revoke(m, &ro, &why), -EBADMSG);
	r.gen = 1;
	r.ibdev[0] = '\0';
	mp_pack(&m, kActRevoke, r);
	CU_ASSERT_EQUAL(decode_revoke(m, &ro, &why), -EBADMSG);
	a.hdr = mp_hdr();
	strcpy(a.ibdev, "sim0");
	a.slot = 1u << 30;
	a.gen = 1;
	a.revoke_id = 1;
	mp_pack(&m, kActRevokeAck, a);
	CU_ASSERT_EQUAL(decode_revoke_ack(m, &ao, &why), -EBADMSG);
	a.slot = 0;
	mp_pack(&m, kActRevokeAck, a);
	m.num_fds = 1;
	CU_ASSERT_EQUAL(decode_revoke_ack(m, &ao, &why), -EBADMSG);
	m.num_fds = 0;
	CU_ASSERT_EQUAL(decode_revoke_ack(m, &ao, &why), 0);
}

const dvs_test_case cases[] = {
	DVS_TEST(test_attach_req_roundtrip),
	DVS_TEST(test_wrong_sizes_and_fds),
	DVS_TEST(test_version_mismatch_names_both),
	DVS_TEST(test_attach_rep_counts),
	DVS_TEST(test_event_and_detach_strings),
	DVS_TEST(test_revoke_messages),
	DVS_TEST(test_goodbye),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("ipc_proto", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_ipc_proto", register_tests)
