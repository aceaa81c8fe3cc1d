/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dvshare's messages, on each secondary's channel (channel.h). They keep
 * DPDK's struct rte_mp_msg for their shape; none goes over rte_mp, where
 * dvshare registers no action. Every field a peer sends is checked by the
 * decoders below before use: sizes, magic, protocol version, counts, fd
 * counts and string termination.
 */
#ifndef DVS_IPC_PROTO_H
#define DVS_IPC_PROTO_H

#include <cstdint>
#include <sys/types.h>
#include <string>
#include <utility>

#include <rte_eal.h>

#include "dvs_log.h"
#include "dvshare.h"

namespace dvs {

/* A secondary's hello and its primary's welcome, its attach requests and
 * their answers; then everything that acts for a process or is said to
 * one. */
constexpr char kActAttach[] = "dvshare_attach";
constexpr char kActHello[] = "dvshare_hello";
constexpr char kActWelcome[] = "dvshare_welcome";
constexpr char kActDetach[] = "dvshare_detach";
constexpr char kActEvent[] = "dvshare_event";
constexpr char kActRevoke[] = "dvshare_revoke";
constexpr char kActRevokeAck[] = "dvshare_revoke_ack";
constexpr char kActBye[] = "dvshare_bye";
constexpr char kActResync[] = "dvshare_resync";
/* A secondary's request lines (below): one announced on its channel,
 * then its requests (creates, destroys of what it owns) and the primary's
 * answer to each, on that line, never on the channel. */
constexpr char kActLine[] = "dvshare_line";
constexpr char kActCreate[] = "dvshare_create";
constexpr char kActDestroy[] = "dvshare_destroy";
constexpr char kActReply[] = "dvshare_reply";
constexpr uint32_t kMpMagic = 0x48535644; /* "DVSH" */
constexpr uint32_t kMpProto = 8;
/* The most fds one dvshare message carries. The protocol's own number,
 * not RTE_MP_MAX_FD_NUM (8 up to DPDK 25.07, 253 since): two processes
 * speak the same protocol whatever DPDK carries it, and every DPDK
 * dvshare builds on must carry this many. */
constexpr int kMpMaxFds = 8;
static_assert(kMpMaxFds <= RTE_MP_MAX_FD_NUM,
	      "this DPDK's rte_mp carries fewer fds than dvshare's protocol needs");
/* Two fds per device (cmd_fd, registry) and the primary's pidfd: three
 * devices per message. */
constexpr uint32_t kDevsPerMsg = (kMpMaxFds - 2) / 2;
constexpr int kDevNameMax = 64;

struct MpHdr {
	uint32_t magic;
	uint32_t proto;
	uint32_t lib_version;
	int32_t pid;
};

/* Secondary -> primary, first on its channel: who it is. fds[0]: a pidfd
 * of the sender, which must be the process the kernel says connected. */
struct HelloMsg {
	MpHdr hdr;
};

/* Primary -> secondary on its channel: the answer to its hello. A token
 * lets it ask for devices once; each answer brings the next. */
struct WelcomeMsg {
	MpHdr hdr;
	int32_t status; /* 0, or a negative errno (e.g. -EPROTO, -EPERM) */
	uint32_t reserved;
	uint64_t token;
};

/* Secondary -> primary on its channel: send me devices [start, start +
 * kDevsPerMsg). No fds. @token, from the welcome or the last answer, is
 * good for one answer: a peer asking again and again gets one. */
struct AttachReq {
	MpHdr hdr;
	uint32_t start;
	uint32_t seq;      /* echoed in the answer */
	uint64_t token;
};

/* Primary -> secondary, on its channel: fds[2i] cmd_fd, fds[2i+1] registry
 * of device i, fds[2 * count] a pidfd of the primary (when status is 0). */
struct AttachRep {
	MpHdr hdr;
	int32_t status;    /* 0, or a negative errno (e.g. -EPERM) */
	uint32_t total;    /* devices the primary shares */
	uint32_t start;
	uint32_t count;    /* devices in this message */
	uint32_t flags;    /* none defined: 0 */
	uint32_t seq;      /* the request's */
	uint64_t list_gen; /* the list changed if this differs between pages */
	uint64_t token;    /* for the next request */
};

/* Either way over a channel, from a process that exits normally; read by
 * the other side when the writer's pidfd fires, to tell a clean exit from
 * a death without rte_mp, which EAL may already have closed by then. */
struct ByeMsg {
	MpHdr hdr;
	uint32_t magic; /* kByeMagic */
};
constexpr uint32_t kByeMagic = 0x45594221; /* "!BYE" */

/* Primary -> secondary: messages to it were dropped (its channel stayed
 * full): read the truth from the registries again. */
struct ResyncMsg {
	MpHdr hdr;
};

/* Secondary -> primary: this process detached from a device. */
struct DetachMsg {
	MpHdr hdr;
	char ibdev[kDevNameMax];
};

/* Primary -> secondaries: something happened to an object. */
struct EventMsg {
	MpHdr hdr;
	uint32_t event; /* dvshare_event */
	char ibdev[kDevNameMax];
	char name[DVSHARE_NAME_MAX];
};

/* RevokeMsg.slot of a batch: let go of every entry Revoking with the
 * message's revoke id (gen is then 0). */
constexpr uint32_t kRevokeBatch = 0xffffffffu;

/* Primary -> secondaries: let go of the object in @slot. */
struct RevokeMsg {
	MpHdr hdr;
	char ibdev[kDevNameMax];
	uint32_t slot;
	uint32_t gen;
	uint32_t revoke_id;
};

/* Secondary -> primary: done letting go (fenced, unimported or refused). */
struct RevokeAck {
	MpHdr hdr;
	char ibdev[kDevNameMax];
	uint32_t slot;
	uint32_t gen;
	uint32_t revoke_id;
};

/* The most command input a secondary's DEVX create carries (in a sealed
 * memfd beside the request: no channel message holds a queue's command),
 * and the most output the answer brings back (a create's output is its
 * 16-byte header and id). */
constexpr uint32_t kCreateInMax = 16384;
constexpr uint32_t kCreateOutMax = 128;
/* A command this short (ALLOC_PD, ALLOC_FLOW_COUNTER, ALLOC_TRANSPORT_
 * DOMAIN: 16 bytes) travels in the request itself: no memfd to make, pass
 * and read on the way of the commonest creates. */
constexpr uint32_t kCreateInline = 48;
/* CreateReq.flags: the object goes to the primary, outliving its creator. */
constexpr uint32_t kCreatePersist = 1u << 0;
/* CreateReq.flags, UMEM: the primary allocates the memory (@size bytes
 * aligned to @addr, a power of two), and frees it when the UMEM is
 * destroyed, whoever owned it (dvshare_umem_alloc()). */
constexpr uint32_t kCreateAlloc = 1u << 1;
/* The largest alignment such a UMEM may ask for (a 1 GiB page). */
constexpr uint64_t kAllocAlignMax = 1ull << 30;

/* Secondary -> primary, on a request line: create @name on @ibdev for
 * me. @kind is a dvshare_type. VAR: @arg is
 * mlx5dv_alloc_var()'s flags. OBJ: the command is its first @inlen bytes:
 * in @cmd up to kCreateInline, else in fds[0] (a memfd, sealed against
 * writes and resizes by the sender, of exactly @inlen bytes); @outlen is
 * the caller's output buffer. UMEM:
 * [@addr, @addr + @size) in DPDK's shared memory, @arg the access flags;
 * with kCreateAlloc, @size bytes the primary allocates, aligned to @addr. */
struct CreateReq {
	MpHdr hdr;
	uint32_t seq;   /* echoed in the reply */
	uint32_t kind;
	uint32_t flags; /* kCreatePersist */
	uint32_t arg;
	char ibdev[kDevNameMax];
	char name[DVSHARE_NAME_MAX];
	uint64_t addr;
	uint64_t size;
	uint32_t inlen;
	uint32_t outlen;
	uint8_t cmd[kCreateInline];
};

/* Secondary -> primary, on a request line: destroy @name, which I own
 * (coordinated, waiting up to @timeout_ms for the other secondaries). */
struct DestroyReq {
	MpHdr hdr;
	uint32_t seq;
	uint32_t timeout_ms;
	char ibdev[kDevNameMax];
	char name[DVSHARE_NAME_MAX];
};

/* Secondary -> primary on its channel: a request line, as fds[0]. A
 * line is one end of a SOCK_SEQPACKET pair the secondary made; it keeps
 * the other, and sends its requests there one at a time, each waiting
 * for its answer (a kActReply) on the same line. The primary's request
 * thread reads every line directly (no hand-off from the thread that
 * reads channels), and the asking thread reads its own answer. A line
 * the primary will not take is answered once with @seq 0 and the
 * refusal's status, then closed; a line whose sender breaks the protocol
 * is closed unanswered. A secondary keeps at most kLinesPerPeer. */
struct LineMsg {
	MpHdr hdr;
};
constexpr uint32_t kLinesPerPeer = 16;

/* Primary -> the secondary that asked: the outcome of request @seq. A
 * create's: the object's slot and generation, and the command's output
 * (also on EREMOTEIO: status and syndrome). */
struct ReplyMsg {
	MpHdr hdr;
	uint32_t seq;
	int32_t status; /* 0 or a negative errno */
	uint32_t slot;
	uint32_t gen;
	uint32_t outlen; /* bytes of @out that are the command's */
	uint32_t reserved;
	uint8_t out[kCreateOutMax];
};

static_assert(sizeof(EventMsg) <= RTE_MP_MAX_PARAM_LEN);
static_assert(sizeof(CreateReq) <= RTE_MP_MAX_PARAM_LEN);
static_assert(sizeof(ReplyMsg) <= RTE_MP_MAX_PARAM_LEN);

MpHdr mp_hdr();

/* Fill @msg with action @name and the bytes of @body. */
template <typename T> void mp_pack(struct rte_mp_msg *msg, const char *name, const T &body);

/* Decoders: 0, or a negative errno with the reason in @why. A protocol
 * mismatch is -EPROTO and names both versions. */
int decode_hello(const struct rte_mp_msg &m, HelloMsg *out, std::string *why);
int decode_welcome(const struct rte_mp_msg &m, WelcomeMsg *out, std::string *why);
/* A release as "MAJOR.MINOR.PATCH" (kLibVersion's packing). */
std::string version_str(uint32_t v);
int decode_bye(const struct rte_mp_msg &m, ByeMsg *out, std::string *why);
int decode_line(const struct rte_mp_msg &m, LineMsg *out, std::string *why);
int decode_resync(const struct rte_mp_msg &m, ResyncMsg *out, std::string *why);
int decode_attach_req(const struct rte_mp_msg &m, AttachReq *out, std::string *why);
int decode_attach_rep(const struct rte_mp_msg &m, AttachRep *out, std::string *why);
int decode_detach(const struct rte_mp_msg &m, DetachMsg *out, std::string *why);
int decode_event(const struct rte_mp_msg &m, EventMsg *out, std::string *why);
int decode_revoke(const struct rte_mp_msg &m, RevokeMsg *out, std::string *why);
int decode_revoke_ack(const struct rte_mp_msg &m, RevokeAck *out, std::string *why);
int decode_create(const struct rte_mp_msg &m, CreateReq *out, std::string *why);
int decode_destroy(const struct rte_mp_msg &m, DestroyReq *out, std::string *why);
int decode_reply(const struct rte_mp_msg &m, ReplyMsg *out, std::string *why);

/* Handler body shared by every action: decode @msg, then run @fn on the
 * body, or log why the message was refused. Always 0 for rte_mp. */
template <typename T, typename D, typename F>
int on_message(const struct rte_mp_msg *msg, D decode, const char *what, F &&fn)
{
	T body;
	std::string why;

	if (decode(*msg, &body, &why) != 0)
		DVS_LOG(ERR, "%s refused: %s", what, why.c_str());
	else
		fn(body);
	return 0;
}

} // namespace dvs

#endif
