/* SPDX-License-Identifier: BSD-3-Clause */
/* Suite unit: decoding of dvshare's messages (rte_mp and channel), and the
 * channel's framing: exact fd counts, malformed frames, a full queue. */
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dvs_cunit.h"
#include "dvshare.h"
#include "channel.h"
#include "ipc_proto.h"
#include "registry_layout.h"

using namespace dvs;

namespace {

void test_attach_req_roundtrip()
{
	struct rte_mp_msg m;
	AttachReq req{ mp_hdr(), 4, 0, 77 }, out;
	std::string why;

	mp_pack(&m, kActAttach, req);
	CU_ASSERT_STRING_EQUAL(m.name, kActAttach);
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), 0);
	CU_ASSERT_EQUAL(out.start, 4u);
	CU_ASSERT_EQUAL(out.token, 77u);
	CU_ASSERT_EQUAL(out.hdr.pid, getpid());
}

void test_wrong_sizes_and_fds()
{
	struct rte_mp_msg m;
	AttachReq req{ mp_hdr(), 0, 0, 1 }, out;
	std::string why;

	mp_pack(&m, kActAttach, req);
	m.len_param -= 1;
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), -EBADMSG);
	mp_pack(&m, kActAttach, req);
	m.num_fds = 1; /* who it is comes from its channel: no fd */
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), -EBADMSG);
	mp_pack(&m, kActAttach, req);
	reinterpret_cast<AttachReq *>(m.param)->hdr.magic = 0;
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), -EBADMSG);
	mp_pack(&m, kActAttach, req);
	reinterpret_cast<AttachReq *>(m.param)->hdr.pid = 0;
	CU_ASSERT_EQUAL(decode_attach_req(m, &out, &why), -EBADMSG);
}

void test_version_mismatch_names_both()
{
	struct rte_mp_msg m;
	AttachReq req{ mp_hdr(), 0, 0, 1 }, out;
	std::string why;

	req.hdr.lib_version = (3u << 16) | (1u << 8) | 4u;
	mp_pack(&m, kActAttach, req);
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
	rep.token = 5;
	mp_pack(&m, kActAttach, rep);
	m.num_fds = 5; /* two devices and the primary's pidfd */
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), 0);
	m.num_fds = 4;
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
	m.num_fds = 6;
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
	rep.token = 0; /* an answer must bring the next token */
	mp_pack(&m, kActAttach, rep);
	m.num_fds = 5;
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
	rep.token = 5;
	rep.flags = 1; /* a flag this release does not know */
	mp_pack(&m, kActAttach, rep);
	m.num_fds = 5;
	CU_ASSERT_EQUAL(decode_attach_rep(m, &out, &why), -EBADMSG);
	rep.flags = 0;
	/* Three devices and the pidfd fit a message (the protocol's own
	 * limit, whatever this DPDK's rte_mp carries). */
	CU_ASSERT_TRUE(kDevsPerMsg * 2 + 1 <= static_cast<uint32_t>(kMpMaxFds));
	CU_ASSERT_TRUE((kDevsPerMsg + 1) * 2 + 1 > static_cast<uint32_t>(kMpMaxFds));
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

/* The channel's own messages: a hello carries exactly one fd, a welcome
 * a status and (when 0) a token, a goodbye its magic. */
void test_channel_messages()
{
	struct rte_mp_msg m;
	std::string why;
	HelloMsg h{ mp_hdr() }, ho;
	WelcomeMsg w{}, wo;
	ByeMsg b{ mp_hdr(), kByeMagic }, bo;
	ResyncMsg r{ mp_hdr() }, ro;

	mp_pack(&m, kActHello, h);
	CU_ASSERT_EQUAL(decode_hello(m, &ho, &why), -EBADMSG); /* no pidfd */
	m.num_fds = 1;
	CU_ASSERT_EQUAL(decode_hello(m, &ho, &why), 0);
	m.num_fds = 2;
	CU_ASSERT_EQUAL(decode_hello(m, &ho, &why), -EBADMSG);
	w.hdr = mp_hdr();
	mp_pack(&m, kActWelcome, w);
	CU_ASSERT_EQUAL(decode_welcome(m, &wo, &why), -EBADMSG); /* welcome without a token */
	w.token = 3;
	mp_pack(&m, kActWelcome, w);
	CU_ASSERT_EQUAL(decode_welcome(m, &wo, &why), 0);
	w.status = -EPERM;
	w.token = 0;
	mp_pack(&m, kActWelcome, w);
	CU_ASSERT_EQUAL(decode_welcome(m, &wo, &why), 0);
	CU_ASSERT_EQUAL(wo.status, -EPERM);
	w.status = 7;
	mp_pack(&m, kActWelcome, w);
	CU_ASSERT_EQUAL(decode_welcome(m, &wo, &why), -EBADMSG);
	mp_pack(&m, kActBye, b);
	CU_ASSERT_EQUAL(decode_bye(m, &bo, &why), 0);
	b.magic = 0;
	mp_pack(&m, kActBye, b);
	CU_ASSERT_EQUAL(decode_bye(m, &bo, &why), -EBADMSG);
	mp_pack(&m, kActResync, r);
	CU_ASSERT_EQUAL(decode_resync(m, &ro, &why), 0);
}

/* A channel is a SOCK_SEQPACKET pair here, as accept() gives one. */
void seqpacket_pair(Fd *a, Fd *b)
{
	int sv[2];

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	*a = Fd(sv[0]);
	*b = Fd(sv[1]);
}

int open_fds()
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* What arrives is what was sent: the body, and exactly the fds that came
 * (num_fds counts them, whatever a sender might claim), owned by the
 * receiver and closed with its vector. */
void test_channel_framing()
{
	Fd a, b;
	struct rte_mp_msg m, in;
	std::vector<Fd> fds;
	RevokeAck ack{};

	seqpacket_pair(&a, &b);
	ack.hdr = mp_hdr();
	strcpy(ack.ibdev, "sim0");
	mp_pack(&m, kActRevokeAck, ack);
	CU_ASSERT_EQUAL(channel_recv(b.get(), &in, &fds), 0); /* nothing yet */
	CU_ASSERT_EQUAL(channel_send(a.get(), m), 0);
	CU_ASSERT_EQUAL(channel_recv(b.get(), &in, &fds), 1);
	CU_ASSERT_STRING_EQUAL(in.name, kActRevokeAck);
	CU_ASSERT_EQUAL(in.len_param, static_cast<int>(sizeof(ack)));
	CU_ASSERT_EQUAL(memcmp(in.param, &ack, sizeof(ack)), 0);
	CU_ASSERT_EQUAL(in.num_fds, 0);
	/* Two fds sent: two received, new fds of this process, closed with
	 * the vector. */
	int before = open_fds();
	m.num_fds = 2;
	m.fds[0] = a.get();
	m.fds[1] = b.get();
	CU_ASSERT_EQUAL(channel_send(a.get(), m), 0);
	CU_ASSERT_EQUAL(channel_recv(b.get(), &in, &fds), 1);
	CU_ASSERT_EQUAL(in.num_fds, 2);
	CU_ASSERT_EQUAL(fds.size(), 2u);
	CU_ASSERT_EQUAL(open_fds(), before + 2);
	CU_ASSERT_NOT_EQUAL(in.fds[0], a.get());
	fds.clear();
	CU_ASSERT_EQUAL(open_fds(), before);
	/* More fds than the protocol allows, by a raw sender: refused, and
	 * none of them stays open here. */
	int many[kMpMaxFds + 4];
	for (int &f : many)
		f = a.get();
	char ctl[CMSG_SPACE(sizeof(many))] = {};
	struct iovec iov = { m.name, sizeof(m.name) + sizeof(int) };
	struct msghdr mh = {};
	int32_t zero = 0;
	char frame[sizeof(m.name) + sizeof(zero)];
	memcpy(frame, kActDetach, sizeof(kActDetach));
	memset(frame + sizeof(kActDetach), 0, sizeof(m.name) - sizeof(kActDetach));
	memcpy(frame + sizeof(m.name), &zero, sizeof(zero));
	iov.iov_base = frame;
	iov.iov_len = sizeof(frame);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl;
	mh.msg_controllen = sizeof(ctl);
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(many));
	memcpy(CMSG_DATA(c), many, sizeof(many));
	CU_ASSERT_EQUAL(sendmsg(a.get(), &mh, 0), static_cast<ssize_t>(sizeof(frame)));
	CU_ASSERT_EQUAL(channel_recv(b.get(), &in, &fds), -EBADMSG);
	CU_ASSERT_EQUAL(fds.size(), 0u);
	CU_ASSERT_EQUAL(open_fds(), before);
	/* Junk, a frame claiming more body than it has: refused. */
	CU_ASSERT_EQUAL(send(a.get(), "junk", 4, 0), 4);
	CU_ASSERT_EQUAL(channel_recv(b.get(), &in, &fds), -EBADMSG);
	int32_t lie = 200;
	memcpy(frame + sizeof(m.name), &lie, sizeof(lie));
	CU_ASSERT_EQUAL(send(a.get(), frame, sizeof(frame), 0), static_cast<ssize_t>(sizeof(frame)));
	CU_ASSERT_EQUAL(channel_recv(b.get(), &in, &fds), -EBADMSG);
	memcpy(frame + sizeof(m.name) - 1, "x", 1); /* an unterminated name */
	memcpy(frame + sizeof(m.name), &zero, sizeof(zero));
	memset(frame, 'x', sizeof(m.name));
	CU_ASSERT_EQUAL(send(a.get(), frame, sizeof(frame), 0), static_cast<ssize_t>(sizeof(frame)));
	CU_ASSERT_EQUAL(channel_recv(b.get(), &in, &fds), -EBADMSG);
	/* The writer gone: the end of the stream. */
	a.reset();
	CU_ASSERT_EQUAL(channel_recv(b.get(), &in, &fds), -EPIPE);
}

/* A reader that stops reading: the sender is told at once (-EAGAIN),
 * never made to wait; a message too big for the protocol is not sent. */
void test_channel_full()
{
	Fd a, b;
	struct rte_mp_msg m;
	EventMsg ev{};
	int sent = 0, rc = 0;

	seqpacket_pair(&a, &b);
	ev.hdr = mp_hdr();
	mp_pack(&m, kActEvent, ev);
	while ((rc = channel_send(a.get(), m)) == 0 && sent < 100000)
		sent++;
	CU_ASSERT_EQUAL(rc, -EAGAIN);
	CU_ASSERT_TRUE(sent > 0);
	std::vector<Fd> fds;
	struct rte_mp_msg in;
	CU_ASSERT_EQUAL(channel_recv(b.get(), &in, &fds), 1); /* room for one more */
	CU_ASSERT_EQUAL(channel_send(a.get(), m), 0);
	m.len_param = RTE_MP_MAX_PARAM_LEN + 1;
	CU_ASSERT_EQUAL(channel_send(a.get(), m), -EINVAL);
	m.len_param = sizeof(ev);
	m.num_fds = kMpMaxFds + 1;
	CU_ASSERT_EQUAL(channel_send(a.get(), m), -EINVAL);
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

/* A secondary's create: each field the primary acts on is checked. */
void test_create_request()
{
	struct rte_mp_msg m;
	CreateReq c{}, out;
	std::string why;

	c.hdr = mp_hdr();
	c.kind = DVSHARE_TYPE_OBJ;
	strcpy(c.ibdev, "sim0");
	strcpy(c.name, "c0");
	c.inlen = 64;
	c.outlen = 16;
	/* On its line, a request carries @fds: none but a long command's. */
	auto decode = [&](int fds) {
		mp_pack(&m, kActCreate, c);
		m.num_fds = fds;
		return decode_create(m, &out, &why);
	};
	CU_ASSERT_EQUAL(decode(1), 0);
	CU_ASSERT_EQUAL(decode(0), -EBADMSG); /* a long command comes in an fd */
	c.inlen = kCreateInline; /* a short one in the request */
	CU_ASSERT_EQUAL(decode(0), 0);
	CU_ASSERT_EQUAL(decode(1), -EBADMSG);
	c.inlen = 64;
	c.inlen = kCreateInMax + 1;
	CU_ASSERT_EQUAL(decode(1), -EBADMSG);
	c.inlen = 8; /* shorter than a command header */
	CU_ASSERT_EQUAL(decode(1), -EBADMSG);
	c.inlen = 64;
	c.flags = 2;
	CU_ASSERT_EQUAL(decode(1), -EBADMSG);
	c.flags = kCreatePersist;
	CU_ASSERT_EQUAL(decode(1), 0);
	c.kind = 7;
	CU_ASSERT_EQUAL(decode(0), -EBADMSG);
	c.kind = DVSHARE_TYPE_VAR;
	CU_ASSERT_EQUAL(decode(0), 0);
	CU_ASSERT_EQUAL(decode(1), -EBADMSG); /* no fd with a VAR */
	c.kind = DVSHARE_TYPE_UMEM;
	c.addr = UINT64_MAX - 10;
	c.size = 4096; /* wraps */
	CU_ASSERT_EQUAL(decode(0), -EBADMSG);
	c.addr = 0x200000000000;
	CU_ASSERT_EQUAL(decode(0), 0);
	c.size = 0;
	CU_ASSERT_EQUAL(decode(0), -EBADMSG);
	c.size = 4096;
	/* The primary allocates: @addr is the alignment, a power of two up
	 * to 1 GiB, and only a UMEM is allocated. */
	c.flags = kCreateAlloc;
	c.addr = 4096;
	CU_ASSERT_EQUAL(decode(0), 0);
	for (uint64_t bad : { 0ull, 3ull, 4097ull, (1ull << 31) }) {
		c.addr = bad;
		CU_ASSERT_EQUAL(decode(0), -EBADMSG);
	}
	c.addr = 1ull << 30;
	CU_ASSERT_EQUAL(decode(0), 0);
	c.size = UINT64_MAX - 100; /* size + alignment wraps */
	CU_ASSERT_EQUAL(decode(0), -EBADMSG);
	c.size = 0;
	CU_ASSERT_EQUAL(decode(0), -EBADMSG);
	c.size = 4096;
	c.kind = DVSHARE_TYPE_VAR;
	CU_ASSERT_EQUAL(decode(0), -EBADMSG);
	c.kind = DVSHARE_TYPE_UMEM;
	c.flags = kCreateAlloc | kCreatePersist;
	CU_ASSERT_EQUAL(decode(0), 0);
	c.flags = 4;
	CU_ASSERT_EQUAL(decode(0), -EBADMSG);
	c.flags = 0;
	c.addr = 0x200000000000;
	memset(c.name, 'n', sizeof(c.name)); /* unterminated */
	CU_ASSERT_EQUAL(decode(0), -EBADMSG);
	c.name[0] = '\0'; /* empty */
	CU_ASSERT_EQUAL(decode(0), -EBADMSG);

	DestroyReq d{}, dout;
	d.hdr = mp_hdr();
	strcpy(d.ibdev, "sim0");
	mp_pack(&m, kActDestroy, d);
	CU_ASSERT_EQUAL(decode_destroy(m, &dout, &why), -EBADMSG); /* no name */
	strcpy(d.name, "c0");
	mp_pack(&m, kActDestroy, d);
	CU_ASSERT_EQUAL(decode_destroy(m, &dout, &why), 0);
	m.num_fds = 1;
	CU_ASSERT_EQUAL(decode_destroy(m, &dout, &why), -EBADMSG); /* no fd on a line */

	/* A line: the header and exactly the line's fd. */
	LineMsg ln{ mp_hdr() }, lout;
	mp_pack(&m, kActLine, ln);
	CU_ASSERT_EQUAL(decode_line(m, &lout, &why), -EBADMSG);
	m.num_fds = 1;
	CU_ASSERT_EQUAL(decode_line(m, &lout, &why), 0);
	m.num_fds = 2;
	CU_ASSERT_EQUAL(decode_line(m, &lout, &why), -EBADMSG);

	ReplyMsg r{}, rout;
	r.hdr = mp_hdr();
	r.status = 5; /* a status is 0 or a negative errno */
	mp_pack(&m, kActReply, r);
	CU_ASSERT_EQUAL(decode_reply(m, &rout, &why), -EBADMSG);
	r.status = -EDQUOT;
	r.outlen = kCreateOutMax + 1;
	mp_pack(&m, kActReply, r);
	CU_ASSERT_EQUAL(decode_reply(m, &rout, &why), -EBADMSG);
	r.outlen = 16;
	mp_pack(&m, kActReply, r);
	CU_ASSERT_EQUAL(decode_reply(m, &rout, &why), 0);
	CU_ASSERT_EQUAL(rout.status, -EDQUOT);
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
	DVS_TEST(test_create_request),
	DVS_TEST(test_channel_messages),
	DVS_TEST(test_channel_framing),
	DVS_TEST(test_channel_full),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("ipc_proto", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_ipc_proto", register_tests)
