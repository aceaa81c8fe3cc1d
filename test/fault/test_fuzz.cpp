/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite fault (and fuzz, run under ASan/UBSan too): random and mutated
 * inputs to everything a secondary or primary decodes from a peer: the
 * five rte_mp messages and registry images (header, entries, and the whole
 * attach + lookup path on a mutated memfd). Every input must be accepted
 * with its invariants holding, or refused with a reason: no crash, no
 * sanitizer report. The seed is printed; set DVS_FUZZ_SEED to replay.
 */
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dvs_cunit.h"
#include "dvshare_prm.h"
#include "ipc_proto.h"
#include "registry.h"

using namespace dvs;

namespace {

std::mt19937_64 rng;
unsigned long inputs;

uint64_t rnd(uint64_t n)
{
	return n == 0 ? 0 : rng() % n;
}

/* Flip, overwrite or randomise bytes of @buf. */
void mutate(uint8_t *buf, size_t len)
{
	switch (rnd(4)) {
	case 0: /* a few bit flips */
		for (uint64_t i = rnd(8) + 1; i > 0; i--)
			buf[rnd(len)] ^= static_cast<uint8_t>(1u << rnd(8));
		break;
	case 1: /* a few random bytes */
		for (uint64_t i = rnd(8) + 1; i > 0; i--)
			buf[rnd(len)] = static_cast<uint8_t>(rng());
		break;
	case 2: { /* an interesting 32-bit value somewhere */
		static const uint32_t vals[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff,
						 kMpMagic, kMpProto, kLibVersion, 64, 65, 256 };
		uint32_t v = vals[rnd(sizeof(vals) / sizeof(vals[0]))];
		size_t at = rnd(len >= 4 ? len - 3 : 1);
		memcpy(buf + at, &v, std::min<size_t>(4, len - at));
		break;
	}
	default: /* all random */
		for (size_t i = 0; i < len; i++)
			buf[i] = static_cast<uint8_t>(rng());
	}
}

/* A valid message of each kind, then mutated in body, size and fd count. */
template <typename T, typename D>
void fuzz_msg(const char *action, const T &valid, int valid_fds, D decode, int n)
{
	for (int i = 0; i < n; i++, inputs++) {
		struct rte_mp_msg m;
		T out;
		std::string why;

		mp_pack(&m, action, valid);
		m.num_fds = valid_fds;
		if (rnd(4) != 0)
			mutate(m.param, sizeof(T));
		if (rnd(8) == 0)
			m.len_param = static_cast<int>(rnd(RTE_MP_MAX_PARAM_LEN + 1));
		if (rnd(8) == 0)
			m.num_fds = static_cast<int>(rnd(kMpMaxFds + 3)) - 1;
		int rc = decode(m, &out, &why);
		if (rc < 0) {
			CU_ASSERT_FATAL(!why.empty());
			continue;
		}
		CU_ASSERT_FATAL(rc == 0);
		/* Accepted: the shape must be exactly right. */
		CU_ASSERT_FATAL(m.len_param == static_cast<int>(sizeof(T)));
		CU_ASSERT_FATAL(out.hdr.magic == kMpMagic && out.hdr.proto == kMpProto &&
				out.hdr.pid > 0);
	}
}

void test_fuzz_messages()
{
	MpHdr h = mp_hdr();
	AttachReq req{ h, 0, 0, 1 };
	HelloMsg hello{ h };
	WelcomeMsg wel{ h, 0, 0, 9 };
	ByeMsg bye{ h, kByeMagic };
	ResyncMsg rs{ h };
	AttachRep rep{};
	DetachMsg det{};
	EventMsg ev{};
	RevokeMsg rv{};
	RevokeAck ack{};
	const int n = 17000;

	rep.hdr = h;
	rep.total = 4;
	rep.count = 3;
	rep.token = 2;
	det.hdr = h;
	strcpy(det.ibdev, "sim0");
	ev.hdr = h;
	ev.event = DVSHARE_EVENT_PUBLISHED;
	strcpy(ev.ibdev, "sim0");
	strcpy(ev.name, "q0");
	rv.hdr = h;
	strcpy(rv.ibdev, "sim0");
	rv.gen = 1;
	rv.revoke_id = 1;
	ack.hdr = h;
	strcpy(ack.ibdev, "sim0");
	ack.gen = 1;
	ack.revoke_id = 1;

	fuzz_msg(kActAttach, req, 0, decode_attach_req, n);
	fuzz_msg(kActHello, hello, 1, decode_hello, n);
	fuzz_msg(kActWelcome, wel, 0, decode_welcome, n);
	fuzz_msg(kActBye, bye, 0, decode_bye, n);
	fuzz_msg(kActResync, rs, 0, decode_resync, n);
	fuzz_msg(kActDetach, det, 0, decode_detach, n);
	fuzz_msg(kActEvent, ev, 0, decode_event, n);
	fuzz_msg(kActRevoke, rv, 0, decode_revoke, n);
	fuzz_msg(kActRevokeAck, ack, 0, decode_revoke_ack, n);
	/* A secondary's line, its requests and the primary's answer
	 * (protocol 8). */
	LineMsg ln{ h };
	fuzz_msg(kActLine, ln, 1, decode_line, n);
	CreateReq cr{};
	cr.hdr = h;
	cr.seq = 1;
	cr.kind = DVSHARE_TYPE_OBJ;
	strcpy(cr.ibdev, "sim0");
	strcpy(cr.name, "c0");
	cr.inlen = 64;
	cr.outlen = 16;
	DestroyReq dr{};
	dr.hdr = h;
	strcpy(dr.ibdev, "sim0");
	strcpy(dr.name, "c0");
	ReplyMsg rp{};
	rp.hdr = h;
	rp.status = -EPERM;
	/* On the line, no fd but the OBJ's long command. */
	fuzz_msg(kActCreate, cr, 1, decode_create, n);
	fuzz_msg(kActDestroy, dr, 0, decode_destroy, n);
	fuzz_msg(kActReply, rp, 0, decode_reply, n);
	/* An accepted create is one the primary can act on as it stands: a
	 * known kind, terminated names, a command within bounds in exactly
	 * one fd, a UMEM range that does not wrap. */
	for (int i = 0; i < n; i++, inputs++) {
		struct rte_mp_msg m;
		CreateReq out;
		std::string why;

		cr.kind = static_cast<uint32_t>(rnd(3)) + 1;
		cr.addr = 0x200000000000;
		cr.size = 4096;
		mp_pack(&m, kActCreate, cr);
		m.num_fds = cr.kind == DVSHARE_TYPE_OBJ ? 1 : 0;
		mutate(m.param, sizeof(cr));
		if (rnd(8) == 0)
			m.num_fds = static_cast<int>(rnd(4));
		if (decode_create(m, &out, &why) != 0)
			continue;
		CU_ASSERT_FATAL(out.kind >= DVSHARE_TYPE_VAR && out.kind <= DVSHARE_TYPE_UMEM);
		CU_ASSERT_FATAL(memchr(out.name, 0, sizeof(out.name)) != nullptr && out.name[0] != 0);
		CU_ASSERT_FATAL(memchr(out.ibdev, 0, sizeof(out.ibdev)) != nullptr);
		CU_ASSERT_FATAL(m.num_fds ==
				(out.kind == DVSHARE_TYPE_OBJ && out.inlen > kCreateInline ? 1 : 0));
		if (out.kind == DVSHARE_TYPE_OBJ)
			CU_ASSERT_FATAL(out.inlen >= DVSHARE_PRM_HDR_SIZE && out.inlen <= kCreateInMax &&
					out.outlen <= kCreateInMax);
		if (out.kind == DVSHARE_TYPE_UMEM)
			CU_ASSERT_FATAL(out.size != 0 && out.addr + out.size > out.addr);
		CU_ASSERT_FATAL((out.flags & ~kCreatePersist) == 0);
	}
	/* The reply: accepted ones must describe a consistent page. */
	for (int i = 0; i < n; i++, inputs++) {
		struct rte_mp_msg m;
		AttachRep out;
		std::string why;

		mp_pack(&m, kActAttach, rep);
		m.num_fds = 7;
		if (rnd(4) != 0)
			mutate(m.param, sizeof(rep));
		if (rnd(8) == 0)
			m.num_fds = static_cast<int>(rnd(kMpMaxFds + 3)) - 1;
		if (decode_attach_rep(m, &out, &why) != 0) {
			CU_ASSERT_FATAL(!why.empty());
			continue;
		}
		CU_ASSERT_FATAL(out.count <= kDevsPerMsg);
		CU_ASSERT_FATAL(out.status != 0 || out.start + out.count <= out.total);
		CU_ASSERT_FATAL(out.flags == 0);
		CU_ASSERT_FATAL(out.status != 0 || out.token != 0);
		CU_ASSERT_FATAL(m.num_fds == (out.status == 0 ? static_cast<int>(out.count * 2 + 1) : 0));
	}
}

/* A small real registry to mutate. */
Registry make_registry()
{
	Registry r;
	const struct mlx5dv_export_sizes sizes = { 32, 16, 32 };

	CU_ASSERT_FATAL(r.create("sim0", "sim", sizes, 8, 0x800) == 0);
	for (int i = 0; i < 6; i++) {
		RegEntry e{};
		uint32_t slot;
		snprintf(e.name, sizeof(e.name), "obj%d", i);
		e.type = 1 + i % 3;
		e.blob_len = 16;
		CU_ASSERT_FATAL(r.insert(e, &slot) == 0);
	}
	return r;
}

void test_fuzz_registry_headers_and_entries()
{
	Registry r = make_registry();
	const size_t size = r.hdr()->file_size;
	const auto *entries = reinterpret_cast<const RegEntry *>(
		reinterpret_cast<const uint8_t *>(r.hdr()) + reg_entries_off(r.nslots()));
	std::string why;

	for (int i = 0; i < 100000; i++, inputs++) {
		RegHeader h = *r.hdr();
		mutate(reinterpret_cast<uint8_t *>(&h), sizeof(h));
		size_t fsize = rnd(4) == 0 ? rnd(2 * size) : size;
		if (validate_header(h, fsize, &why) != 0) {
			CU_ASSERT_FATAL(!why.empty());
			continue;
		}
		/* Accepted geometry must be self-consistent. */
		CU_ASSERT_FATAL((h.nslots & (h.nslots - 1)) == 0 && h.max_probe < h.nslots &&
				fsize == h.file_size &&
				fsize >= reg_file_size(h.nslots, h.max_objects));
	}
	for (int i = 0; i < 20000; i++, inputs++) {
		RegEntry e = entries[rnd(r.hdr()->entries_used)];
		mutate(reinterpret_cast<uint8_t *>(&e), sizeof(e));
		if (!validate_entry(e))
			continue;
		if (e.state == static_cast<uint32_t>(EntryState::Live)) {
			CU_ASSERT_FATAL(memchr(e.name, '\0', sizeof(e.name)) != nullptr);
			CU_ASSERT_FATAL(e.blob_len <= kBlobMax && e.meta_len <= DVSHARE_META_MAX);
		}
	}
}

/* @len bytes of @data in a memfd sealed as a primary seals a registry,
 * reopened read-only: what a secondary receives. */
int sealed_ro(const void *data, size_t len)
{
	int fd = memfd_create("fuzz-registry", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	char path[64];

	if (fd < 0 || write(fd, data, len) != static_cast<ssize_t>(len) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL) != 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int ro = open(path, O_RDONLY | O_CLOEXEC);
	close(fd);
	return ro;
}

/* The whole secondary path on a mutated image: attach, find, read all. */
void test_fuzz_registry_images()
{
	Registry r = make_registry();
	const size_t size = r.hdr()->file_size;

	for (int i = 0; i < 2000; i++, inputs++) {
		std::vector<uint8_t> img(reinterpret_cast<const uint8_t *>(r.hdr()),
					 reinterpret_cast<const uint8_t *>(r.hdr()) + size);
		const size_t eoff = reg_entries_off(r.nslots());
		mutate(img.data(), kRegHeaderSize);
		mutate(img.data() + kRegHeaderSize, eoff - kRegHeaderSize); /* bitmap, index */
		mutate(img.data() + eoff, size - eoff);
		/* Keep most seqlocks even so reads go past them. */
		for (size_t off = eoff; off + sizeof(RegEntry) <= size; off += sizeof(RegEntry))
			if (rnd(16) != 0)
				img[off] &= 0xfe;
		size_t len = rnd(8) == 0 ? rnd(size) : size;
		int fd = sealed_ro(img.data(), len);
		CU_ASSERT_FATAL(fd >= 0);
		Registry ro;
		std::string why;
		if (ro.attach(Fd(fd), &why) != 0) {
			CU_ASSERT_FATAL(!why.empty());
			continue;
		}
		RegEntry snap;
		uint32_t slot;
		for (int k = 0; k < 8; k++) {
			char name[16];
			snprintf(name, sizeof(name), "obj%d", k);
			int rc = ro.find(name, &snap, &slot);
			CU_ASSERT_FATAL(rc == 0 || rc == -ENOENT || rc == -EBADMSG || rc == -EAGAIN);
			if (rc == 0)
				CU_ASSERT_FATAL(slot < ro.nslots() && strcmp(snap.name, name) == 0);
		}
		for (uint32_t s = ro.next_used(0); s < ro.nslots(); s = ro.next_used(s + 1)) {
			int rc = ro.read(s, &snap);
			CU_ASSERT_FATAL(rc == 0 || rc == -EBADMSG || rc == -EAGAIN);
		}
	}
}

void test_fuzz_total()
{
	printf("fuzz: %lu inputs\n", inputs);
	CU_ASSERT(inputs >= 100000);
}

const dvs_test_case cases[] = {
	DVS_TEST(test_fuzz_messages),
	DVS_TEST(test_fuzz_registry_headers_and_entries),
	DVS_TEST(test_fuzz_registry_images),
	DVS_TEST(test_fuzz_total),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	const char *s = getenv("DVS_FUZZ_SEED");
	uint64_t seed = s != nullptr ? strtoull(s, nullptr, 0) : std::random_device{}();

	printf("fuzz seed %llu (DVS_FUZZ_SEED to replay)\n", static_cast<unsigned long long>(seed));
	rng.seed(seed);
	return dvs_cunit_add("fuzz", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_fuzz", register_tests)
