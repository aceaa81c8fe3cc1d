/* SPDX-License-Identifier: BSD-3-Clause */
#include "ipc_proto.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include <pthread.h>
#include <unistd.h>

#include <rte_errno.h>

#include "dvshare_prm.h"
#include "registry_layout.h"

namespace dvs {

std::string version_str(uint32_t v)
{
	return std::to_string(v >> 16) + "." + std::to_string((v >> 8) & 0xff) + "." +
	       std::to_string(v & 0xff);
}

namespace {

/* Copy the fixed-size body out of @m after checking its size and header. */
template <typename T>
int decode_body(const struct rte_mp_msg &m, T *out, int nfds, std::string *why)
{
	if (m.len_param != static_cast<int>(sizeof(T))) {
		if (m.len_param >= static_cast<int>(sizeof(MpHdr))) {
			MpHdr h;
			memcpy(&h, m.param, sizeof(h));
			if (h.magic == kMpMagic && h.proto != kMpProto) {
				*why = "peer speaks dvshare protocol " + std::to_string(h.proto) +
				       " (dvshare " + version_str(h.lib_version) +
				       "), this process protocol " + std::to_string(kMpProto) +
				       " (dvshare " + version_str(kLibVersion) + ")";
				return -EPROTO;
			}
		}
		*why = "message of " + std::to_string(m.len_param) + " bytes, expected " +
		       std::to_string(sizeof(T));
		return -EBADMSG;
	}
	if (m.num_fds != nfds) {
		*why = "message carries " + std::to_string(m.num_fds) + " fds, expected " +
		       std::to_string(nfds);
		return -EBADMSG;
	}
	memcpy(out, m.param, sizeof(T));
	const MpHdr &h = out->hdr;
	if (h.magic != kMpMagic) {
		*why = "not a dvshare message (bad magic)";
		return -EBADMSG;
	}
	if (h.proto != kMpProto || h.lib_version != kLibVersion) {
		*why = "peer runs dvshare " + version_str(h.lib_version) + " (protocol " +
		       std::to_string(h.proto) + "), this process dvshare " +
		       version_str(kLibVersion) + " (protocol " + std::to_string(kMpProto) + ")";
		return -EPROTO;
	}
	if (h.pid <= 0) {
		*why = "bad peer pid";
		return -EBADMSG;
	}
	return 0;
}

bool terminated(const char *s, size_t n)
{
	return memchr(s, '\0', n) != nullptr;
}

} // namespace

namespace {

/* getpid() is a system call: once per process (and per fork child), not
 * once per message. */
std::atomic<int32_t> self_pid{0};

int32_t pid_now()
{
	int32_t pid = self_pid.load(std::memory_order_relaxed);

	if (pid == 0) {
		static std::once_flag once;
		std::call_once(once, [] {
			pthread_atfork(nullptr, nullptr,
				       [] { self_pid.store(0, std::memory_order_relaxed); });
		});
		pid = static_cast<int32_t>(getpid());
		self_pid.store(pid, std::memory_order_relaxed);
	}
	return pid;
}

} // namespace

MpHdr mp_hdr()
{
	return MpHdr{ kMpMagic, kMpProto, kLibVersion, pid_now() };
}

template <typename T> void mp_pack(struct rte_mp_msg *msg, const char *name, const T &body)
{
	static_assert(sizeof(T) <= RTE_MP_MAX_PARAM_LEN);
	memset(msg, 0, sizeof(*msg));
	snprintf(msg->name, sizeof(msg->name), "%s", name);
	msg->len_param = sizeof(T);
	memcpy(msg->param, &body, sizeof(T));
}

template void mp_pack(struct rte_mp_msg *, const char *, const HelloMsg &);
template void mp_pack(struct rte_mp_msg *, const char *, const WelcomeMsg &);
template void mp_pack(struct rte_mp_msg *, const char *, const ByeMsg &);
template void mp_pack(struct rte_mp_msg *, const char *, const LineMsg &);
template void mp_pack(struct rte_mp_msg *, const char *, const ResyncMsg &);
template void mp_pack(struct rte_mp_msg *, const char *, const AttachReq &);
template void mp_pack(struct rte_mp_msg *, const char *, const AttachRep &);
template void mp_pack(struct rte_mp_msg *, const char *, const DetachMsg &);
template void mp_pack(struct rte_mp_msg *, const char *, const EventMsg &);
template void mp_pack(struct rte_mp_msg *, const char *, const RevokeMsg &);
template void mp_pack(struct rte_mp_msg *, const char *, const RevokeAck &);
template void mp_pack(struct rte_mp_msg *, const char *, const CreateReq &);
template void mp_pack(struct rte_mp_msg *, const char *, const DestroyReq &);
template void mp_pack(struct rte_mp_msg *, const char *, const ReplyMsg &);

int decode_hello(const struct rte_mp_msg &m, HelloMsg *out, std::string *why)
{
	return decode_body(m, out, 1, why);
}

int decode_welcome(const struct rte_mp_msg &m, WelcomeMsg *out, std::string *why)
{
	int rc = decode_body(m, out, 0, why);

	if (rc == 0 && (out->status > 0 || out->status < -4095 ||
			(out->status == 0 && out->token == 0))) {
		*why = "welcome with a bad status or no token";
		rc = -EBADMSG;
	}
	return rc;
}

int decode_line(const struct rte_mp_msg &m, LineMsg *out, std::string *why)
{
	return decode_body(m, out, 1, why); /* the line */
}

int decode_bye(const struct rte_mp_msg &m, ByeMsg *out, std::string *why)
{
	int rc = decode_body(m, out, 0, why);

	if (rc == 0 && out->magic != kByeMagic) {
		*why = "goodbye without its magic";
		rc = -EBADMSG;
	}
	return rc;
}

int decode_resync(const struct rte_mp_msg &m, ResyncMsg *out, std::string *why)
{
	return decode_body(m, out, 0, why);
}

int decode_attach_req(const struct rte_mp_msg &m, AttachReq *out, std::string *why)
{
	int rc = decode_body(m, out, 0, why);

	if (rc == 0 && out->start > (1u << 20)) {
		*why = "attach request starts past any device list";
		rc = -EBADMSG;
	}
	return rc;
}

int decode_attach_rep(const struct rte_mp_msg &m, AttachRep *out, std::string *why)
{
	if (m.len_param != static_cast<int>(sizeof(AttachRep)) || m.num_fds < 0 ||
	    m.num_fds > kMpMaxFds) {
		*why = "attach reply of unexpected size";
		return -EBADMSG;
	}
	AttachRep r;
	memcpy(&r, m.param, sizeof(r));
	if (r.count > kDevsPerMsg) {
		*why = "attach reply claims too many devices";
		return -EBADMSG;
	}
	/* Refusals carry no fds; answers carry the primary's pidfd too. */
	if (r.flags != 0) {
		*why = "attach reply with unknown flags";
		return -EBADMSG;
	}
	int nfds = r.status == 0 ? static_cast<int>(r.count * 2 + 1) : 0;
	int rc = decode_body(m, out, nfds, why);
	if (rc != 0)
		return rc;
	if (out->status > 0 || out->status < -4095 || (out->status != 0 && out->count != 0)) {
		*why = "attach reply with a bad status";
		return -EBADMSG;
	}
	if (out->status == 0 && (out->start > out->total || out->count > out->total - out->start)) {
		*why = "attach reply counts are inconsistent";
		return -EBADMSG;
	}
	if (out->status == 0 && out->token == 0) {
		*why = "attach reply without the next token";
		return -EBADMSG;
	}
	return 0;
}

int decode_detach(const struct rte_mp_msg &m, DetachMsg *out, std::string *why)
{
	int rc = decode_body(m, out, 0, why);

	if (rc == 0 && !terminated(out->ibdev, sizeof(out->ibdev))) {
		*why = "unterminated device name";
		rc = -EBADMSG;
	}
	return rc;
}

int decode_event(const struct rte_mp_msg &m, EventMsg *out, std::string *why)
{
	int rc = decode_body(m, out, 0, why);

	if (rc != 0)
		return rc;
	if (!terminated(out->ibdev, sizeof(out->ibdev)) ||
	    !terminated(out->name, sizeof(out->name))) {
		*why = "unterminated name";
		return -EBADMSG;
	}
	if (out->event < DVSHARE_EVENT_PUBLISHED || out->event > DVSHARE_EVENT_CLOSED) {
		*why = "unknown event " + std::to_string(out->event);
		return -EBADMSG;
	}
	return 0;
}

/* Revoke and its ack have the same shape: one checker for both. */
template <typename T> static int decode_revoke_body(const struct rte_mp_msg &m, T *out,
						   std::string *why)
{
	int rc = decode_body(m, out, 0, why);

	if (rc != 0)
		return rc;
	if (!terminated(out->ibdev, sizeof(out->ibdev)) || out->ibdev[0] == '\0') {
		*why = "bad device name";
		return -EBADMSG;
	}
	const bool batch = out->slot == kRevokeBatch && out->gen == 0;
	if ((!batch && (out->slot >= (1u << 24) || out->gen == 0)) || out->revoke_id == 0) {
		*why = "revoke names no valid slot";
		return -EBADMSG;
	}
	return 0;
}

int decode_revoke(const struct rte_mp_msg &m, RevokeMsg *out, std::string *why)
{
	return decode_revoke_body(m, out, why);
}

int decode_revoke_ack(const struct rte_mp_msg &m, RevokeAck *out, std::string *why)
{
	return decode_revoke_body(m, out, why);
}

} // namespace dvs

namespace dvs {

namespace {

/* The fds a create of this shape carries on its line: a long command's
 * memfd. */
int create_fds(const CreateReq &c)
{
	return c.kind == DVSHARE_TYPE_OBJ && c.inlen > kCreateInline ? 1 : 0;
}

/* A device and an object name: both terminated, neither empty. */
bool names_ok(const char *ibdev, size_t ni, const char *name, size_t nn)
{
	return terminated(ibdev, ni) && ibdev[0] != '\0' && terminated(name, nn) &&
	       name[0] != '\0';
}

} // namespace

int decode_create(const struct rte_mp_msg &m, CreateReq *out, std::string *why)
{
	/* A DEVX object's command longer than kCreateInline in an fd. */
	CreateReq peek;
	if (m.len_param == static_cast<int>(sizeof(peek)))
		memcpy(&peek, m.param, sizeof(peek));
	else
		peek.kind = 0;
	int rc = decode_body(m, out, create_fds(peek), why);

	if (rc != 0)
		return rc;
	if (!names_ok(out->ibdev, sizeof(out->ibdev), out->name, sizeof(out->name))) {
		*why = "bad device or object name";
		return -EBADMSG;
	}
	if (out->kind < DVSHARE_TYPE_VAR || out->kind > DVSHARE_TYPE_UMEM) {
		*why = "unknown object kind " + std::to_string(out->kind);
		return -EBADMSG;
	}
	if ((out->flags & ~(kCreatePersist | kCreateAlloc)) != 0) {
		*why = "unknown create flags";
		return -EBADMSG;
	}
	if ((out->flags & kCreateAlloc) != 0) {
		if (out->kind != DVSHARE_TYPE_UMEM || out->size == 0 || out->addr == 0 ||
		    out->addr > kAllocAlignMax || (out->addr & (out->addr - 1)) != 0 ||
		    out->size > UINT64_MAX - out->addr) {
			*why = "allocation of " + std::to_string(out->size) + " bytes aligned to " +
			       std::to_string(out->addr) + " (a UMEM, a power of two up to 1 GiB)";
			return -EBADMSG;
		}
		return 0;
	}
	if (out->kind == DVSHARE_TYPE_OBJ &&
	    (out->inlen < DVSHARE_PRM_HDR_SIZE || out->inlen > kCreateInMax ||
	     out->outlen < DVSHARE_PRM_HDR_SIZE || out->outlen > kCreateInMax)) {
		*why = "create command of " + std::to_string(out->inlen) + " bytes, output of " +
		       std::to_string(out->outlen) + " (" + std::to_string(DVSHARE_PRM_HDR_SIZE) +
		       " to " + std::to_string(kCreateInMax) + ")";
		return -EBADMSG;
	}
	if (out->kind == DVSHARE_TYPE_UMEM &&
	    (out->size == 0 || out->addr == 0 || out->addr + out->size < out->addr)) {
		*why = "UMEM range empty or wrapping";
		return -EBADMSG;
	}
	return 0;
}

int decode_destroy(const struct rte_mp_msg &m, DestroyReq *out, std::string *why)
{
	int rc = decode_body(m, out, 0, why);

	if (rc == 0 && !names_ok(out->ibdev, sizeof(out->ibdev), out->name, sizeof(out->name))) {
		*why = "bad device or object name";
		rc = -EBADMSG;
	}
	return rc;
}

int decode_reply(const struct rte_mp_msg &m, ReplyMsg *out, std::string *why)
{
	int rc = decode_body(m, out, 0, why);

	if (rc != 0)
		return rc;
	if (out->status > 0 || out->status < -4095 || out->outlen > kCreateOutMax ||
	    out->reserved != 0) {
		*why = "reply with a bad status or length";
		return -EBADMSG;
	}
	return 0;
}

} // namespace dvs
