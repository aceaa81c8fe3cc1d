/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The slice of the mlx5 PRM (programmer's reference manual) dvshare speaks:
 * general-object command headers, status codes, and the two object types the
 * software device implements. Fields are big-endian, as the device reads them;
 * the accessors below are the only place that byte order is handled.
 *
 * Layouts (byte offsets):
 *
 *   general object command in (16 B):  0 opcode(16) 2 uid(16)
 *       4 vhca_tunnel_id(16) 6 obj_type(16) 8 obj_id(32) 12 log_obj_range(8)
 *   general object command out (16 B): 0 status(8) 4 syndrome(32) 8 obj_id(32)
 *
 * The object context follows the 16-byte header in CREATE/MODIFY input and in
 * QUERY output.
 */
#ifndef DVS_PRM_H
#define DVS_PRM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Command opcodes. */
enum dvs_prm_opcode {
	DVS_PRM_CMD_CREATE_GENERAL_OBJECT = 0x0a00,
	DVS_PRM_CMD_MODIFY_GENERAL_OBJECT = 0x0a01,
	DVS_PRM_CMD_QUERY_GENERAL_OBJECT = 0x0a02,
	DVS_PRM_CMD_DESTROY_GENERAL_OBJECT = 0x0a03,
};

/** Command status (out byte 0). */
enum dvs_prm_status {
	DVS_PRM_STATUS_OK = 0x00,
	DVS_PRM_STATUS_INTERNAL_ERR = 0x01,
	DVS_PRM_STATUS_BAD_OP = 0x02,
	DVS_PRM_STATUS_BAD_PARAM = 0x03,
	DVS_PRM_STATUS_BAD_SYS_STATE = 0x04,
	DVS_PRM_STATUS_BAD_RESOURCE = 0x05,
	DVS_PRM_STATUS_RESOURCE_BUSY = 0x06,
	DVS_PRM_STATUS_EXCEED_LIM = 0x08,
	DVS_PRM_STATUS_BAD_RES_STATE = 0x09,
	DVS_PRM_STATUS_BAD_INDEX = 0x0a,
	DVS_PRM_STATUS_NO_RESOURCES = 0x0f,
	DVS_PRM_STATUS_BAD_INPUT_LEN = 0x50,
	DVS_PRM_STATUS_BAD_OUTPUT_LEN = 0x51,
};

/** General object types. */
enum dvs_prm_obj_type {
	/** virtio-net queue (PRM VIRTIO_NET_Q); sim layout below. */
	DVS_PRM_OBJ_VIRTQ = 0x000d,
	/** Software-device object holding opaque attributes (not on hardware). */
	DVS_PRM_OBJ_GENERIC = 0x0f00,
};

#define DVS_PRM_HDR_SIZE 16u

/*
 * Virtio-queue context (after the header), 48 bytes:
 *   0 modify_field_select(64) 8 queue_index(16) 10 queue_size(16)
 *   12 state(8) 16 umem_id(32) 24 desc_addr(64) 32 used_addr(64)
 *   40 avail_addr(64)
 */
#define DVS_PRM_VIRTQ_CTX_SIZE 48u
enum dvs_prm_virtq_state {
	DVS_PRM_VIRTQ_INIT = 0,
	DVS_PRM_VIRTQ_RDY = 1,
	DVS_PRM_VIRTQ_SUSPEND = 2,
	DVS_PRM_VIRTQ_ERR = 3,
};
/** modify_field_select bits of a virtio queue. */
#define DVS_PRM_VIRTQ_MODIFY_STATE (1ull << 0)
#define DVS_PRM_VIRTQ_MODIFY_ADDRS (1ull << 1)

enum dvs_prm_virtq_off {
	DVS_PRM_VIRTQ_MODIFY_SELECT = 0,
	DVS_PRM_VIRTQ_QUEUE_INDEX = 8,
	DVS_PRM_VIRTQ_QUEUE_SIZE = 10,
	DVS_PRM_VIRTQ_STATE = 12,
	DVS_PRM_VIRTQ_UMEM_ID = 16,
	DVS_PRM_VIRTQ_DESC_ADDR = 24,
	DVS_PRM_VIRTQ_USED_ADDR = 32,
	DVS_PRM_VIRTQ_AVAIL_ADDR = 40,
};

/*
 * Generic context (after the header), 64 bytes:
 *   0 modify_field_select(64) 8 data[56]
 */
#define DVS_PRM_GENERIC_CTX_SIZE 64u
#define DVS_PRM_GENERIC_DATA_OFF 8u
#define DVS_PRM_GENERIC_DATA_SIZE 56u
#define DVS_PRM_GENERIC_MODIFY_DATA (1ull << 0)

/** Largest context of any type: size command buffers with it. */
#define DVS_PRM_CTX_MAX DVS_PRM_GENERIC_CTX_SIZE
#define DVS_PRM_CMD_MAX (DVS_PRM_HDR_SIZE + DVS_PRM_CTX_MAX)

static inline void dvs_prm_put8(void *buf, size_t off, uint8_t v)
{
	((uint8_t *)buf)[off] = v;
}

static inline uint8_t dvs_prm_get8(const void *buf, size_t off)
{
	return ((const uint8_t *)buf)[off];
}

static inline void dvs_prm_put16(void *buf, size_t off, uint16_t v)
{
	uint16_t be = __builtin_bswap16(v);
	memcpy((uint8_t *)buf + off, &be, sizeof(be));
}

static inline uint16_t dvs_prm_get16(const void *buf, size_t off)
{
	uint16_t be;
	memcpy(&be, (const uint8_t *)buf + off, sizeof(be));
	return __builtin_bswap16(be);
}

static inline void dvs_prm_put32(void *buf, size_t off, uint32_t v)
{
	uint32_t be = __builtin_bswap32(v);
	memcpy((uint8_t *)buf + off, &be, sizeof(be));
}

static inline uint32_t dvs_prm_get32(const void *buf, size_t off)
{
	uint32_t be;
	memcpy(&be, (const uint8_t *)buf + off, sizeof(be));
	return __builtin_bswap32(be);
}

static inline void dvs_prm_put64(void *buf, size_t off, uint64_t v)
{
	uint64_t be = __builtin_bswap64(v);
	memcpy((uint8_t *)buf + off, &be, sizeof(be));
}

static inline uint64_t dvs_prm_get64(const void *buf, size_t off)
{
	uint64_t be;
	memcpy(&be, (const uint8_t *)buf + off, sizeof(be));
	return __builtin_bswap64(be);
}

/** Decoded general-object command header. */
struct dvs_prm_hdr {
	uint16_t opcode;
	uint16_t uid;
	uint16_t obj_type;
	uint32_t obj_id;
	uint8_t log_obj_range;
};

/** Write a general-object command header at the start of @p in. */
static inline void dvs_prm_hdr_encode(void *in, const struct dvs_prm_hdr *h)
{
	memset(in, 0, DVS_PRM_HDR_SIZE);
	dvs_prm_put16(in, 0, h->opcode);
	dvs_prm_put16(in, 2, h->uid);
	dvs_prm_put16(in, 6, h->obj_type);
	dvs_prm_put32(in, 8, h->obj_id);
	dvs_prm_put8(in, 12, h->log_obj_range & 0x1f);
}

/** Read a general-object command header from @p in (DVS_PRM_HDR_SIZE bytes). */
static inline struct dvs_prm_hdr dvs_prm_hdr_decode(const void *in)
{
	struct dvs_prm_hdr h;

	h.opcode = dvs_prm_get16(in, 0);
	h.uid = dvs_prm_get16(in, 2);
	h.obj_type = dvs_prm_get16(in, 6);
	h.obj_id = dvs_prm_get32(in, 8);
	h.log_obj_range = dvs_prm_get8(in, 12) & 0x1f;
	return h;
}

/** Status byte of a command output. */
static inline uint8_t dvs_prm_out_status(const void *out)
{
	return dvs_prm_get8(out, 0);
}

/** Syndrome of a command output. */
static inline uint32_t dvs_prm_out_syndrome(const void *out)
{
	return dvs_prm_get32(out, 4);
}

/** Object id a CREATE command returned. */
static inline uint32_t dvs_prm_out_obj_id(const void *out)
{
	return dvs_prm_get32(out, 8);
}

/** Short name of a PRM status, for logs. */
static inline const char *dvs_prm_status_str(uint8_t status)
{
	switch (status) {
	case DVS_PRM_STATUS_OK: return "OK";
	case DVS_PRM_STATUS_INTERNAL_ERR: return "INTERNAL_ERR";
	case DVS_PRM_STATUS_BAD_OP: return "BAD_OP";
	case DVS_PRM_STATUS_BAD_PARAM: return "BAD_PARAM";
	case DVS_PRM_STATUS_BAD_SYS_STATE: return "BAD_SYS_STATE";
	case DVS_PRM_STATUS_BAD_RESOURCE: return "BAD_RESOURCE";
	case DVS_PRM_STATUS_RESOURCE_BUSY: return "RESOURCE_BUSY";
	case DVS_PRM_STATUS_EXCEED_LIM: return "EXCEED_LIM";
	case DVS_PRM_STATUS_BAD_RES_STATE: return "BAD_RES_STATE";
	case DVS_PRM_STATUS_BAD_INDEX: return "BAD_INDEX";
	case DVS_PRM_STATUS_NO_RESOURCES: return "NO_RESOURCES";
	case DVS_PRM_STATUS_BAD_INPUT_LEN: return "BAD_INPUT_LEN";
	case DVS_PRM_STATUS_BAD_OUTPUT_LEN: return "BAD_OUTPUT_LEN";
	default: return "UNKNOWN";
	}
}

/**
 * Build a CREATE_GENERAL_OBJECT for a virtio queue in @p in
 * (DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE bytes); state starts INIT.
 */
static inline size_t dvs_prm_virtq_create(void *in, uint16_t queue_index,
					  uint16_t queue_size, uint32_t umem_id)
{
	struct dvs_prm_hdr h = { DVS_PRM_CMD_CREATE_GENERAL_OBJECT, 0,
				 DVS_PRM_OBJ_VIRTQ, 0, 0 };
	uint8_t *ctx = (uint8_t *)in + DVS_PRM_HDR_SIZE;

	dvs_prm_hdr_encode(in, &h);
	memset(ctx, 0, DVS_PRM_VIRTQ_CTX_SIZE);
	dvs_prm_put16(ctx, DVS_PRM_VIRTQ_QUEUE_INDEX, queue_index);
	dvs_prm_put16(ctx, DVS_PRM_VIRTQ_QUEUE_SIZE, queue_size);
	dvs_prm_put32(ctx, DVS_PRM_VIRTQ_UMEM_ID, umem_id);
	return DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE;
}

/**
 * Build a MODIFY_GENERAL_OBJECT moving virtio queue @p obj_id to @p state.
 */
static inline size_t dvs_prm_virtq_modify_state(void *in, uint32_t obj_id, uint8_t state)
{
	struct dvs_prm_hdr h = { DVS_PRM_CMD_MODIFY_GENERAL_OBJECT, 0,
				 DVS_PRM_OBJ_VIRTQ, obj_id, 0 };
	uint8_t *ctx = (uint8_t *)in + DVS_PRM_HDR_SIZE;

	dvs_prm_hdr_encode(in, &h);
	memset(ctx, 0, DVS_PRM_VIRTQ_CTX_SIZE);
	dvs_prm_put64(ctx, DVS_PRM_VIRTQ_MODIFY_SELECT, DVS_PRM_VIRTQ_MODIFY_STATE);
	dvs_prm_put8(ctx, DVS_PRM_VIRTQ_STATE, state);
	return DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE;
}

/** Build a QUERY or DESTROY general-object command (header only). */
static inline size_t dvs_prm_obj_cmd(void *in, uint16_t opcode, uint16_t obj_type,
				     uint32_t obj_id)
{
	struct dvs_prm_hdr h = { opcode, 0, obj_type, obj_id, 0 };

	dvs_prm_hdr_encode(in, &h);
	return DVS_PRM_HDR_SIZE;
}

#ifdef __cplusplus
}
#endif

#endif /* DVS_PRM_H */
