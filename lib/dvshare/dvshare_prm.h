/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The slice of the mlx5 PRM (programmer's reference manual) dvshare users
 * need to build DEVX commands: command headers and statuses, device
 * capabilities (QUERY_HCA_CAP), protection domains (ALLOC_PD), flow counters
 * (ALLOC/QUERY_FLOW_COUNTER), memory keys (CREATE/QUERY_MKEY) and the
 * VIRTIO_NET_Q general object.
 *
 * Every layout is the device's own: the same bytes work on a ConnectX-6 Dx
 * or BlueField and on the software device. Fields are big-endian and packed
 * MSB first, as in DPDK's drivers/common/mlx5/mlx5_prm.h (mlx5_ifc_*_bits);
 * offsets below are bytes from the start of the command input ("in") or
 * output ("out"). The accessors here are the only place byte order is
 * handled.
 *
 * The builders write a complete command and return its length; pass that
 * length as @c inlen. Destroy commands are never built by the application:
 * the kernel builds them from the create command (mlx5dv_devx_obj_destroy()).
 */
#ifndef DVSHARE_PRM_H
#define DVSHARE_PRM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ byte order */

/**
 * Store a byte at @p off.
 *
 * @param buf  command input or output
 * @param off  byte offset in @p buf
 * @param v    value to store
 */
static inline void dvshare_prm_put8(void *buf, size_t off, uint8_t v)
{
	((uint8_t *)buf)[off] = v;
}

/**
 * Load a byte from @p off.
 *
 * @param buf  command input or output
 * @param off  byte offset in @p buf
 * @return the byte, whole: mask sub-byte fields (e.g. bits 4:0) yourself.
 */
static inline uint8_t dvshare_prm_get8(const void *buf, size_t off)
{
	return ((const uint8_t *)buf)[off];
}

/**
 * Store a big-endian 16-bit field at @p off (any alignment).
 *
 * @param buf  command input or output
 * @param off  byte offset of the field's first (most significant) byte
 * @param v    value, in host byte order
 */
static inline void dvshare_prm_put16(void *buf, size_t off, uint16_t v)
{
	uint16_t be = __builtin_bswap16(v);

	memcpy((uint8_t *)buf + off, &be, sizeof(be));
}

/**
 * Load a big-endian 16-bit field from @p off (any alignment).
 *
 * @param buf  command input or output
 * @param off  byte offset of the field's first (most significant) byte
 * @return the field, in host byte order.
 */
static inline uint16_t dvshare_prm_get16(const void *buf, size_t off)
{
	uint16_t be;

	memcpy(&be, (const uint8_t *)buf + off, sizeof(be));
	return __builtin_bswap16(be);
}

/**
 * Store a big-endian 32-bit field at @p off (any alignment).
 *
 * @param buf  command input or output
 * @param off  byte offset of the field's first (most significant) byte
 * @param v    value, in host byte order
 */
static inline void dvshare_prm_put32(void *buf, size_t off, uint32_t v)
{
	uint32_t be = __builtin_bswap32(v);

	memcpy((uint8_t *)buf + off, &be, sizeof(be));
}

/**
 * Load a big-endian 32-bit field from @p off (any alignment).
 *
 * @param buf  command input or output
 * @param off  byte offset of the field's first (most significant) byte
 * @return the field, in host byte order.
 */
static inline uint32_t dvshare_prm_get32(const void *buf, size_t off)
{
	uint32_t be;

	memcpy(&be, (const uint8_t *)buf + off, sizeof(be));
	return __builtin_bswap32(be);
}

/**
 * Store a big-endian 64-bit field at @p off (any alignment).
 *
 * @param buf  command input or output
 * @param off  byte offset of the field's first (most significant) byte
 * @param v    value, in host byte order
 */
static inline void dvshare_prm_put64(void *buf, size_t off, uint64_t v)
{
	uint64_t be = __builtin_bswap64(v);

	memcpy((uint8_t *)buf + off, &be, sizeof(be));
}

/**
 * Load a big-endian 64-bit field from @p off (any alignment).
 *
 * @param buf  command input or output
 * @param off  byte offset of the field's first (most significant) byte
 * @return the field, in host byte order.
 */
static inline uint64_t dvshare_prm_get64(const void *buf, size_t off)
{
	uint64_t be;

	memcpy(&be, (const uint8_t *)buf + off, sizeof(be));
	return __builtin_bswap64(be);
}

/**
 * Store a 24-bit field whose last byte is @p off + 2 (the PRM's pd, tisn,
 * qpn: the low 24 bits of the big-endian word at @p off - 1). The byte
 * before it is left as it is.
 *
 * @param buf  command input or output
 * @param off  byte offset of the field's first (most significant) byte
 * @param v    value; only its low 24 bits are stored
 */
static inline void dvshare_prm_put24(void *buf, size_t off, uint32_t v)
{
	uint8_t *b = (uint8_t *)buf + off;

	b[0] = (uint8_t)(v >> 16);
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)v;
}

/**
 * Load a big-endian 24-bit field starting at @p off (bytes @p off to
 * @p off + 2, as dvshare_prm_put24() stores it).
 *
 * @param buf  command input or output
 * @param off  byte offset of the field's first (most significant) byte
 * @return the field, in host byte order (below 1 << 24).
 */
static inline uint32_t dvshare_prm_get24(const void *buf, size_t off)
{
	const uint8_t *b = (const uint8_t *)buf + off;

	return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

/* ------------------------------------------------------- opcodes, status */

/** Command opcodes (in byte 0, 16 bits). */
enum dvshare_prm_opcode {
	DVSHARE_PRM_CMD_QUERY_HCA_CAP = 0x0100,          /**< read a capability (general command) */
	DVSHARE_PRM_CMD_CREATE_MKEY = 0x0200,            /**< create a memory key (direct or indirect) */
	DVSHARE_PRM_CMD_QUERY_MKEY = 0x0201,             /**< read a memory key's context */
	DVSHARE_PRM_CMD_DESTROY_MKEY = 0x0202,           /**< destroy one (built by the kernel) */
	DVSHARE_PRM_CMD_ALLOC_PD = 0x0800,               /**< create a protection domain */
	DVSHARE_PRM_CMD_DEALLOC_PD = 0x0801,             /**< destroy a PD (built by the kernel) */
	DVSHARE_PRM_CMD_ALLOC_TRANSPORT_DOMAIN = 0x0816, /**< create a transport domain */
	DVSHARE_PRM_CMD_DEALLOC_TRANSPORT_DOMAIN = 0x0817, /**< destroy one (built by the kernel) */
	DVSHARE_PRM_CMD_CREATE_TIS = 0x0912,             /**< create a transport interface send */
	DVSHARE_PRM_CMD_DESTROY_TIS = 0x0914,            /**< destroy a TIS (built by the kernel) */
	DVSHARE_PRM_CMD_QUERY_TIS = 0x0915,              /**< read a TIS's context */
	DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER = 0x0939,     /**< create a flow counter */
	DVSHARE_PRM_CMD_DEALLOC_FLOW_COUNTER = 0x093a,   /**< destroy one (built by the kernel) */
	DVSHARE_PRM_CMD_QUERY_FLOW_COUNTER = 0x093b,     /**< read a flow counter */
	DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT = 0x0a00,  /**< create an object of obj_type */
	DVSHARE_PRM_CMD_MODIFY_GENERAL_OBJECT = 0x0a01,  /**< change fields of a general object */
	DVSHARE_PRM_CMD_QUERY_GENERAL_OBJECT = 0x0a02,   /**< read a general object's context */
	DVSHARE_PRM_CMD_DESTROY_GENERAL_OBJECT = 0x0a03, /**< destroy one (built by the kernel) */
};

/** Command status (out byte 0); anything but OK comes with errno EREMOTEIO. */
enum dvshare_prm_status {
	DVSHARE_PRM_STATUS_OK = 0x00,             /**< the command succeeded */
	DVSHARE_PRM_STATUS_INTERNAL_ERR = 0x01,   /**< firmware internal error */
	DVSHARE_PRM_STATUS_BAD_OP = 0x02,         /**< opcode not supported */
	DVSHARE_PRM_STATUS_BAD_PARAM = 0x03,      /**< a field is invalid or unsupported */
	DVSHARE_PRM_STATUS_BAD_SYS_STATE = 0x04,  /**< device in a state refusing commands */
	DVSHARE_PRM_STATUS_BAD_RESOURCE = 0x05,   /**< a named object (pd, umem, ...) is invalid */
	DVSHARE_PRM_STATUS_RESOURCE_BUSY = 0x06,  /**< object in use, e.g. a PD a queue holds */
	DVSHARE_PRM_STATUS_EXCEED_LIM = 0x08,     /**< a device limit would be exceeded */
	DVSHARE_PRM_STATUS_BAD_RES_STATE = 0x09,  /**< the object's state forbids the command */
	DVSHARE_PRM_STATUS_BAD_INDEX = 0x0a,      /**< an index is out of range */
	DVSHARE_PRM_STATUS_NO_RESOURCES = 0x0f,   /**< out of device resources */
	DVSHARE_PRM_STATUS_BAD_INPUT_LEN = 0x50,  /**< @c inlen wrong for the command */
	DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN = 0x51, /**< @c outlen too small for the output */
};

/** General-object types (general_obj_in_cmd_hdr.obj_type). */
enum dvshare_prm_obj_type {
	DVSHARE_PRM_OBJ_VIRTIO_NET_Q = 0x000d, /**< virtio-net queue (VIRTIO_NET_Q) */
	DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS = 0x001c, /**< a queue's descriptor and error counters */
};

/**
 * Size of the command header and of the command output header, 16 bytes
 * each:
 * - in:  0 opcode(16) 2 uid(16, set by the kernel) 6 obj_type or op_mod(16)
 *        8 obj_id(32) 12 alias_object(bit 7) / log_obj_range(bits 4:0)
 * - out: 0 status(8) 4 syndrome(32) 8 obj_id(32)
 */
#define DVSHARE_PRM_HDR_SIZE 16u
/**
 * Largest fixed-size command or output built or parsed here (the QUERY_MKEY
 * output), except QUERY_HCA_CAP's output; an indirect key's CREATE_MKEY
 * grows with its entries (DVSHARE_PRM_MKEY_KLM_SIZE()).
 */
#define DVSHARE_PRM_CMD_MAX 304u

/** Decoded general-object command header. */
struct dvshare_prm_hdr {
	uint16_t opcode;      /**< DVSHARE_PRM_CMD_* (in byte 0) */
	uint16_t uid;         /**< user context id (byte 2); the kernel sets it: leave 0 */
	uint16_t obj_type;    /**< op_mod for commands that are not general-object ones */
	uint32_t obj_id;      /**< object the command names (byte 8); 0 for create */
	uint8_t log_obj_range; /**< log2 of the objects in a bulk (byte 12, bits 4:0); 0: one */
};

/**
 * Write a command header at the start of @p in (other header bytes
 * cleared, alias_object included; log_obj_range keeps its low 5 bits).
 *
 * @param in  receives the first DVSHARE_PRM_HDR_SIZE bytes of the command
 * @param h   header fields, in host byte order
 */
static inline void dvshare_prm_hdr_encode(void *in, const struct dvshare_prm_hdr *h)
{
	memset(in, 0, DVSHARE_PRM_HDR_SIZE);
	dvshare_prm_put16(in, 0, h->opcode);
	dvshare_prm_put16(in, 2, h->uid);
	dvshare_prm_put16(in, 6, h->obj_type);
	dvshare_prm_put32(in, 8, h->obj_id);
	dvshare_prm_put8(in, 12, h->log_obj_range & 0x1f);
}

/**
 * Read a command header (DVSHARE_PRM_HDR_SIZE bytes of @p in).
 *
 * @param in  a command
 * @return its header fields, in host byte order (alias_object dropped).
 */
static inline struct dvshare_prm_hdr dvshare_prm_hdr_decode(const void *in)
{
	struct dvshare_prm_hdr h;

	h.opcode = dvshare_prm_get16(in, 0);
	h.uid = dvshare_prm_get16(in, 2);
	h.obj_type = dvshare_prm_get16(in, 6);
	h.obj_id = dvshare_prm_get32(in, 8);
	h.log_obj_range = dvshare_prm_get8(in, 12) & 0x1f;
	return h;
}

/**
 * Opcode of a command.
 *
 * @param in  a command
 * @return its opcode (in byte 0, big-endian 16 bits), a DVSHARE_PRM_CMD_* value.
 */
static inline uint16_t dvshare_prm_opcode(const void *in)
{
	return dvshare_prm_get16(in, 0);
}

/**
 * Status of a command output.
 *
 * @param out  a command output
 * @return its status (out byte 0): DVSHARE_PRM_STATUS_OK, or the
 *   DVSHARE_PRM_STATUS_* error the device reported.
 */
static inline uint8_t dvshare_prm_out_status(const void *out)
{
	return dvshare_prm_get8(out, 0);
}

/**
 * Syndrome of a command output (firmware-specific: log it, do not match it).
 *
 * @param out  a command output
 * @return its syndrome (out byte 4, big-endian 32 bits); meaningful only
 *   when the status is not OK.
 */
static inline uint32_t dvshare_prm_out_syndrome(const void *out)
{
	return dvshare_prm_get32(out, 4);
}

/**
 * obj_id of a CREATE_GENERAL_OBJECT output.
 *
 * @param out  the output of a successful CREATE_GENERAL_OBJECT
 * @return the new object's obj_id (out byte 8, big-endian 32 bits).
 */
static inline uint32_t dvshare_prm_out_obj_id(const void *out)
{
	return dvshare_prm_get32(out, 8);
}

/**
 * Id of the object a create command made, read where that command's
 * output puts it: pd (24 bits at out byte 9) for ALLOC_PD,
 * transport_domain and tisn (24 bits at out byte 9) for
 * ALLOC_TRANSPORT_DOMAIN and CREATE_TIS,
 * flow_counter_id (out byte 8) for ALLOC_FLOW_COUNTER, obj_id (out byte 8)
 * for CREATE_GENERAL_OBJECT. For CREATE_MKEY the mkey, mkey_index (24
 * bits at out byte 9) << 8 | mkey_7_0, with a mkey_7_0 of 0 (the output
 * does not hold it): when the command set another key byte, use
 * dvshare_prm_mkey_created(), which reads it from the command.
 *
 * @param opcode  the create command's opcode (dvshare_prm_opcode())
 * @param out     that command's output
 * @return the id, or 0 for any other opcode.
 */
static inline uint32_t dvshare_prm_created_id(uint16_t opcode, const void *out)
{
	switch (opcode) {
	case DVSHARE_PRM_CMD_CREATE_MKEY:
		return dvshare_prm_get24(out, 9) << 8;
	case DVSHARE_PRM_CMD_ALLOC_PD:
	case DVSHARE_PRM_CMD_ALLOC_TRANSPORT_DOMAIN:
	case DVSHARE_PRM_CMD_CREATE_TIS:
		return dvshare_prm_get24(out, 9);
	case DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER:
	case DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT:
		return dvshare_prm_get32(out, 8);
	default:
		return 0;
	}
}

/**
 * Name of a PRM status, for logs.
 *
 * @param status  dvshare_prm_out_status() of an output
 * @return a static string, the status's name without its prefix (e.g.
 *   "BAD_PARAM"), or "UNKNOWN" for a status not listed here.
 */
static inline const char *dvshare_prm_status_str(uint8_t status)
{
	switch (status) {
	case DVSHARE_PRM_STATUS_OK: return "OK";
	case DVSHARE_PRM_STATUS_INTERNAL_ERR: return "INTERNAL_ERR";
	case DVSHARE_PRM_STATUS_BAD_OP: return "BAD_OP";
	case DVSHARE_PRM_STATUS_BAD_PARAM: return "BAD_PARAM";
	case DVSHARE_PRM_STATUS_BAD_SYS_STATE: return "BAD_SYS_STATE";
	case DVSHARE_PRM_STATUS_BAD_RESOURCE: return "BAD_RESOURCE";
	case DVSHARE_PRM_STATUS_RESOURCE_BUSY: return "RESOURCE_BUSY";
	case DVSHARE_PRM_STATUS_EXCEED_LIM: return "EXCEED_LIM";
	case DVSHARE_PRM_STATUS_BAD_RES_STATE: return "BAD_RES_STATE";
	case DVSHARE_PRM_STATUS_BAD_INDEX: return "BAD_INDEX";
	case DVSHARE_PRM_STATUS_NO_RESOURCES: return "NO_RESOURCES";
	case DVSHARE_PRM_STATUS_BAD_INPUT_LEN: return "BAD_INPUT_LEN";
	case DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN: return "BAD_OUTPUT_LEN";
	default: return "UNKNOWN";
	}
}

/**
 * Build a command that is only a header: @p opcode, @p obj_type (or op_mod)
 * and @p obj_id, e.g. QUERY_GENERAL_OBJECT. uid and log_obj_range are 0.
 *
 * @param in        receives the command (DVSHARE_PRM_HDR_SIZE bytes)
 * @param opcode    DVSHARE_PRM_CMD_*
 * @param obj_type  DVSHARE_PRM_OBJ_* for a general-object command, else op_mod
 * @param obj_id    object the command names, 0 for none
 * @return DVSHARE_PRM_HDR_SIZE
 */
static inline size_t dvshare_prm_obj_cmd(void *in, uint16_t opcode, uint16_t obj_type,
					 uint32_t obj_id)
{
	struct dvshare_prm_hdr h = { opcode, 0, obj_type, obj_id, 0 };

	dvshare_prm_hdr_encode(in, &h);
	return DVSHARE_PRM_HDR_SIZE;
}

/* ------------------------------------------------------- QUERY_HCA_CAP */

/** Capability types (QUERY_HCA_CAP op_mod = type << 1 | current). */
enum dvshare_prm_cap_type {
	DVSHARE_PRM_CAP_GENERAL = 0x00,          /**< cmd_hca_cap */
	DVSHARE_PRM_CAP_VIRTIO_EMULATION = 0x13, /**< virtio_emulation_cap */
};

/** QUERY_HCA_CAP output: 16-byte header, then the capability at this offset. */
#define DVSHARE_PRM_HCA_CAP_OFF 16u
/** Size of a QUERY_HCA_CAP output: the header and the 4096-byte capability. */
#define DVSHARE_PRM_HCA_CAP_OUT_SIZE (DVSHARE_PRM_HCA_CAP_OFF + 4096u)

/** Byte offsets in the general capability (cmd_hca_cap), from its start. */
enum dvshare_prm_cap_general_off {
	DVSHARE_PRM_CAP_VHCA_ID = 6,                  /**< u16 */
	DVSHARE_PRM_CAP_FLOW_COUNTER_BULK_ALLOC = 98, /**< u8 */
	DVSHARE_PRM_CAP_LOG_MAX_MKEY = 29,            /**< bits 5:0 */
	DVSHARE_PRM_CAP_LOG_MAX_KLM_LIST_SIZE = 35,   /**< bits 5:0: log_maxklm_list_size */
	DVSHARE_PRM_CAP_LOG_MAX_PD = 101,             /**< bits 4:0 */
	DVSHARE_PRM_CAP_LOG_MAX_FLOW_COUNTER_BULK = 105, /**< u8 */
	DVSHARE_PRM_CAP_GENERAL_OBJ_TYPES = 128,      /**< u64, bit per obj_type */
};

/** Byte offsets in the virtio emulation capability, from its start. */
enum dvshare_prm_cap_virtio_off {
	DVSHARE_PRM_VCAP_FLAGS = 0,          /**< bit 5: virtio_version_1_0 */
	DVSHARE_PRM_VCAP_EVENT_MODE = 2,     /**< u8, bit per event mode */
	DVSHARE_PRM_VCAP_QUEUE_TYPE = 3,     /**< u8, bit per queue type */
	DVSHARE_PRM_VCAP_LOG_DB_STRIDE = 6,  /**< bits 4:0 */
	DVSHARE_PRM_VCAP_DB_BAR = 7,         /**< bits 7..5 modify caps, 4:0 log bar size */
	DVSHARE_PRM_VCAP_DB_BAR_OFFSET = 8,  /**< u64 */
	DVSHARE_PRM_VCAP_MAX_QUEUES = 17,    /**< 24 bits */
	DVSHARE_PRM_VCAP_FREEZE = 26,        /**< bit 3: freeze_to_rdy_supported */
	DVSHARE_PRM_VCAP_UMEM_PARAMS = 32,   /**< u32 a, u32 b for UMEM 1, 2, 3 */
};

/**
 * Build QUERY_HCA_CAP for the current value of capability @p cap_type
 * (op_mod = @p cap_type << 1 | 1; bit 0 clear would ask for the maximum).
 * Its output is DVSHARE_PRM_HCA_CAP_OUT_SIZE bytes.
 *
 * @param in        receives the command (DVSHARE_PRM_HDR_SIZE bytes)
 * @param cap_type  DVSHARE_PRM_CAP_GENERAL or DVSHARE_PRM_CAP_VIRTIO_EMULATION
 * @return DVSHARE_PRM_HDR_SIZE
 */
static inline size_t dvshare_prm_query_hca_cap(void *in, uint16_t cap_type)
{
	struct dvshare_prm_hdr h = { DVSHARE_PRM_CMD_QUERY_HCA_CAP, 0,
				     (uint16_t)(cap_type << 1 | 1), 0, 0 };

	dvshare_prm_hdr_encode(in, &h);
	return DVSHARE_PRM_HDR_SIZE;
}

/** The general device capabilities dvshare users look at. */
struct dvshare_prm_hca_caps {
	uint64_t general_obj_types;    /**< bit (1 << obj_type) per supported type */
	uint16_t vhca_id;              /**< the device's virtual HCA id */
	uint8_t log_max_pd;            /**< log2 of the most PDs (ALLOC_PD) */
	uint8_t log_max_mkey;          /**< log2 of the most memory keys (CREATE_MKEY) */
	uint8_t log_max_klm_list_size; /**< log2 of the most KLM entries in an indirect mkey */
	uint8_t flow_counter_bulk_alloc; /**< bulk sizes ALLOC_FLOW_COUNTER takes (0: none) */
	uint8_t log_max_flow_counter_bulk; /**< log2 of the most counters in a bulk */
};

/**
 * Decode a QUERY_HCA_CAP(DVSHARE_PRM_CAP_GENERAL) output.
 *
 * @param out  output of a successful dvshare_prm_query_hca_cap() for
 *             DVSHARE_PRM_CAP_GENERAL (DVSHARE_PRM_HCA_CAP_OUT_SIZE bytes)
 * @param c    receives the capabilities, in host byte order
 */
static inline void dvshare_prm_hca_caps_parse(const void *out, struct dvshare_prm_hca_caps *c)
{
	const uint8_t *cap = (const uint8_t *)out + DVSHARE_PRM_HCA_CAP_OFF;

	c->general_obj_types = dvshare_prm_get64(cap, DVSHARE_PRM_CAP_GENERAL_OBJ_TYPES);
	c->vhca_id = dvshare_prm_get16(cap, DVSHARE_PRM_CAP_VHCA_ID);
	c->log_max_pd = dvshare_prm_get8(cap, DVSHARE_PRM_CAP_LOG_MAX_PD) & 0x1f;
	c->log_max_mkey = dvshare_prm_get8(cap, DVSHARE_PRM_CAP_LOG_MAX_MKEY) & 0x3f;
	c->log_max_klm_list_size = dvshare_prm_get8(cap, DVSHARE_PRM_CAP_LOG_MAX_KLM_LIST_SIZE) & 0x3f;
	c->flow_counter_bulk_alloc = dvshare_prm_get8(cap, DVSHARE_PRM_CAP_FLOW_COUNTER_BULK_ALLOC);
	c->log_max_flow_counter_bulk =
		dvshare_prm_get8(cap, DVSHARE_PRM_CAP_LOG_MAX_FLOW_COUNTER_BULK);
}

/**
 * True when the general caps list general-object type @p obj_type.
 *
 * @param c         decoded general caps (dvshare_prm_hca_caps_parse())
 * @param obj_type  DVSHARE_PRM_OBJ_*, e.g. DVSHARE_PRM_OBJ_VIRTIO_NET_Q
 * @return 1 if its bit is set in general_obj_types, else 0 (also for an
 *   @p obj_type of 64 or more, which the field cannot list).
 */
static inline int dvshare_prm_hca_has_obj(const struct dvshare_prm_hca_caps *c, uint16_t obj_type)
{
	return obj_type < 64 && (c->general_obj_types >> obj_type) & 1;
}

/** The virtio emulation capabilities (VIRTIO_NET_Q queues and doorbells). */
struct dvshare_prm_virtio_caps {
	uint8_t virtio_version_1_0;    /**< 1: queues may be created as virtio 1.0 */
	uint8_t event_modes;           /**< bit (1 << DVSHARE_PRM_VIRTQ_EVENT_*) */
	uint8_t queue_types;           /**< bit (1 << DVSHARE_PRM_VIRTQ_TYPE_*) */
	uint8_t log_doorbell_stride;   /**< log2 of the bytes between doorbells in the BAR */
	uint8_t log_doorbell_bar_size; /**< log2 of the doorbell BAR size, in 4 KiB units */
	uint8_t vnet_modify_ext;       /**< 1: MODIFY takes fields beyond the state */
	uint8_t virtio_net_q_addr_modify; /**< 1: MODIFY takes DVSHARE_PRM_VIRTQ_MODIFY_ADDR */
	uint8_t virtio_q_index_modify; /**< 1: MODIFY takes the HW_*_INDEX bits */
	uint64_t doorbell_bar_offset;  /**< doorbell register, from the VAR BAR start */
	uint32_t max_num_virtio_queues; /**< most VIRTIO_NET_Q objects (queue_index bound) */
	struct {
		uint32_t a;            /**< bytes per queue entry */
		uint32_t b;            /**< fixed bytes */
	} umem[3];                     /**< UMEM N+1 size = a * queue_size + b */
	uint8_t freeze_to_rdy_supported; /**< 1: a SUSPEND queue may go back to RDY
					      (else it is destroyed and made again,
					      as DPDK's vdpa driver always does) */
};

/**
 * Decode a QUERY_HCA_CAP(DVSHARE_PRM_CAP_VIRTIO_EMULATION) output.
 *
 * @param out  output of a successful dvshare_prm_query_hca_cap() for
 *             DVSHARE_PRM_CAP_VIRTIO_EMULATION (DVSHARE_PRM_HCA_CAP_OUT_SIZE
 *             bytes)
 * @param c    receives the capabilities, in host byte order
 */
static inline void dvshare_prm_virtio_caps_parse(const void *out,
						 struct dvshare_prm_virtio_caps *c)
{
	const uint8_t *cap = (const uint8_t *)out + DVSHARE_PRM_HCA_CAP_OFF;
	uint8_t bar = dvshare_prm_get8(cap, DVSHARE_PRM_VCAP_DB_BAR);

	c->virtio_version_1_0 = (dvshare_prm_get8(cap, DVSHARE_PRM_VCAP_FLAGS) >> 5) & 1;
	c->event_modes = dvshare_prm_get8(cap, DVSHARE_PRM_VCAP_EVENT_MODE);
	c->queue_types = dvshare_prm_get8(cap, DVSHARE_PRM_VCAP_QUEUE_TYPE);
	c->log_doorbell_stride = dvshare_prm_get8(cap, DVSHARE_PRM_VCAP_LOG_DB_STRIDE) & 0x1f;
	c->vnet_modify_ext = (bar >> 7) & 1;
	c->virtio_net_q_addr_modify = (bar >> 6) & 1;
	c->virtio_q_index_modify = (bar >> 5) & 1;
	c->log_doorbell_bar_size = bar & 0x1f;
	c->doorbell_bar_offset = dvshare_prm_get64(cap, DVSHARE_PRM_VCAP_DB_BAR_OFFSET);
	c->max_num_virtio_queues = dvshare_prm_get24(cap, DVSHARE_PRM_VCAP_MAX_QUEUES);
	c->freeze_to_rdy_supported = (dvshare_prm_get8(cap, DVSHARE_PRM_VCAP_FREEZE) >> 3) & 1;
	for (int i = 0; i < 3; i++) {
		c->umem[i].a = dvshare_prm_get32(cap, DVSHARE_PRM_VCAP_UMEM_PARAMS + 8 * i);
		c->umem[i].b = dvshare_prm_get32(cap, DVSHARE_PRM_VCAP_UMEM_PARAMS + 8 * i + 4);
	}
}

/**
 * Bytes UMEM @p n (0, 1 or 2) of a VIRTIO_NET_Q with @p queue_size entries
 * must hold, as the device computes it (DPDK's vdpa driver does the same).
 *
 * @param c           decoded virtio caps (dvshare_prm_virtio_caps_parse())
 * @param n           which UMEM: 0, 1 or 2 (not checked)
 * @param queue_size  entries in the queue
 * @return umem[n].a * @p queue_size + umem[n].b, in bytes: the least
 *   size to register and to put in the queue's umem[n].size.
 */
static inline uint64_t dvshare_prm_virtq_umem_size(const struct dvshare_prm_virtio_caps *c,
						   unsigned int n, uint16_t queue_size)
{
	return (uint64_t)c->umem[n].a * queue_size + c->umem[n].b;
}

/* ------------------------------------------------------------- ALLOC_PD */

/**
 * Build ALLOC_PD (16 bytes). The output (16 bytes) holds the pd.
 *
 * @param in  receives the command (DVSHARE_PRM_HDR_SIZE bytes)
 * @return DVSHARE_PRM_HDR_SIZE
 */
static inline size_t dvshare_prm_alloc_pd(void *in)
{
	return dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_ALLOC_PD, 0, 0);
}

/**
 * The pd an ALLOC_PD output returned.
 *
 * @param out  the output of a successful ALLOC_PD
 * @return the pd (24 bits at out byte 9).
 */
static inline uint32_t dvshare_prm_alloc_pd_out_pd(const void *out)
{
	return dvshare_prm_get24(out, 9);
}

/* --------------------------------------------------------- flow counter */

/**
 * Size of ALLOC_FLOW_COUNTER in: pd at byte 9 (24 bits), bulk at 14 (log,
 * bits 4:0) and 15.
 */
#define DVSHARE_PRM_FLOW_COUNTER_ALLOC_SIZE 16u
/** Size of QUERY_FLOW_COUNTER in: clear at byte 24 (bit 7), flow_counter_id at 28. */
#define DVSHARE_PRM_FLOW_COUNTER_QUERY_SIZE 32u
/** Size of QUERY_FLOW_COUNTER out for one counter: packets at 16, octets at 24 (u64). */
#define DVSHARE_PRM_FLOW_COUNTER_OUT_SIZE 32u

/**
 * Build ALLOC_FLOW_COUNTER for one counter (no bulk). @p pd may be 0.
 * The output (16 bytes) holds flow_counter_id at byte 8.
 *
 * @param in  receives the command (DVSHARE_PRM_FLOW_COUNTER_ALLOC_SIZE bytes)
 * @param pd  protection domain for the counter (dvshare_prm_alloc_pd_out_pd()), or 0
 * @return DVSHARE_PRM_FLOW_COUNTER_ALLOC_SIZE
 */
static inline size_t dvshare_prm_alloc_flow_counter(void *in, uint32_t pd)
{
	dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER, 0, 0);
	dvshare_prm_put24(in, 9, pd);
	return DVSHARE_PRM_FLOW_COUNTER_ALLOC_SIZE;
}

/**
 * Build QUERY_FLOW_COUNTER for counter @p id, its values returned in the
 * command output (not dumped to memory). @p clear resets them after the read.
 * The output is DVSHARE_PRM_FLOW_COUNTER_OUT_SIZE bytes.
 *
 * @param in     receives the command (DVSHARE_PRM_FLOW_COUNTER_QUERY_SIZE bytes)
 * @param id     flow_counter_id (the ALLOC_FLOW_COUNTER output's, dvshare_obj_id())
 * @param clear  non-zero to set the clear bit
 * @return DVSHARE_PRM_FLOW_COUNTER_QUERY_SIZE
 */
static inline size_t dvshare_prm_query_flow_counter(void *in, uint32_t id, int clear)
{
	memset(in, 0, DVSHARE_PRM_FLOW_COUNTER_QUERY_SIZE);
	dvshare_prm_put16(in, 0, DVSHARE_PRM_CMD_QUERY_FLOW_COUNTER);
	dvshare_prm_put8(in, 24, clear ? 0x80 : 0);
	dvshare_prm_put32(in, 28, id);
	return DVSHARE_PRM_FLOW_COUNTER_QUERY_SIZE;
}

/**
 * Packets counted, from a QUERY_FLOW_COUNTER output.
 *
 * @param out  the output of a successful QUERY_FLOW_COUNTER
 * @return the packet count (big-endian u64 at out byte 16).
 */
static inline uint64_t dvshare_prm_flow_counter_packets(const void *out)
{
	return dvshare_prm_get64(out, 16);
}

/**
 * Octets counted, from a QUERY_FLOW_COUNTER output.
 *
 * @param out  the output of a successful QUERY_FLOW_COUNTER
 * @return the byte count (big-endian u64 at out byte 24).
 */
static inline uint64_t dvshare_prm_flow_counter_octets(const void *out)
{
	return dvshare_prm_get64(out, 24);
}

/* --------------------------------------------------------- memory keys */

/*
 * A memory key (mkey) is how the device reaches memory: a VIRTIO_NET_Q
 * reads and writes its rings and buffers only through its virtio_q_mkey.
 * A direct key maps [start_addr, start_addr + len) onto a UMEM, from
 * mkey_umem_offset (access mode MTT, the translations taken from the
 * UMEM: the kernel sets mkey_umem_valid for every mode but KLM and KSM,
 * devx.c devx_handle_mkey_create). An indirect key (KLM) maps its range
 * onto direct keys, one KLM entry per piece, as DPDK's vdpa/mlx5 maps
 * guest memory (mlx5_vdpa_mem.c). Layouts: mlx5_prm.h create_mkey_in,
 * mkc, klm; the kernel's query_mkey_in/out. The kernel builds
 * DESTROY_MKEY itself; the key is mkey_index << 8 | mkey_7_0.
 */

/** Size of CREATE_MKEY without translations, and of a direct key's command. */
#define DVSHARE_PRM_MKEY_SIZE 272u
/** Size of one KLM entry (byte_count u32, mkey u32, address u64). */
#define DVSHARE_PRM_KLM_SIZE 16u
/**
 * Size of an indirect key's CREATE_MKEY with @p n KLM entries: the
 * entries are padded to a multiple of four with empty ones, as DPDK's
 * mlx5_devx_cmd_mkey_create() sends them.
 */
#define DVSHARE_PRM_MKEY_KLM_SIZE(n) \
	(DVSHARE_PRM_MKEY_SIZE + DVSHARE_PRM_KLM_SIZE * ((((size_t)(n)) + 3) & ~(size_t)3))
/** Size of the QUERY_MKEY output: header, reserved, the mkc at byte 16, translations. */
#define DVSHARE_PRM_MKEY_QUERY_OUT_SIZE 304u
/** The qpn of a key bound to no QP (both drivers give it). */
#define DVSHARE_PRM_MKEY_NO_QPN 0xffffffu

/** Byte offsets in CREATE_MKEY (the mkc ones also in the QUERY_MKEY output). */
enum dvshare_prm_mkey_off {
	DVSHARE_PRM_MKEY_UMEM_VALID = 12,  /**< bit 7 pg_access, bit 6 mkey_umem_valid */
	DVSHARE_PRM_MKEY_MKC = 16,         /**< the 64-byte mkc */
	DVSHARE_PRM_MKEY_MODE_4_2 = 16,    /**< bit 6 free, bits 4:2 access_mode_4_2 */
	DVSHARE_PRM_MKEY_ACCESS = 18,      /**< bits 7 umr_en, 6 a, 5 rw, 4 rr, 3 lw, 2 lr,
					        1:0 access_mode_1_0 */
	DVSHARE_PRM_MKEY_QPN = 20,         /**< 24 bits */
	DVSHARE_PRM_MKEY_KEY = 23,         /**< mkey_7_0 */
	DVSHARE_PRM_MKEY_LENGTH64 = 28,    /**< bit 7 */
	DVSHARE_PRM_MKEY_PD = 29,          /**< 24 bits */
	DVSHARE_PRM_MKEY_START_ADDR = 32,  /**< u64 */
	DVSHARE_PRM_MKEY_LEN = 40,         /**< u64 */
	DVSHARE_PRM_MKEY_TRANSLATIONS = 68, /**< u32 translations_octword_size */
	DVSHARE_PRM_MKEY_LOG_PAGE_SIZE = 75, /**< bits 4:0 */
	DVSHARE_PRM_MKEY_TRANSLATIONS_ACTUAL = 96, /**< u32 translations_octword_actual_size */
	DVSHARE_PRM_MKEY_UMEM_ID = 100,    /**< u32 mkey_umem_id */
	DVSHARE_PRM_MKEY_UMEM_OFFSET = 104, /**< u64 mkey_umem_offset */
	DVSHARE_PRM_MKEY_KLM = 272,        /**< klm_pas_mtt: the KLM entries */
};

/** Access modes (access_mode_4_2 << 2 | access_mode_1_0). */
enum dvshare_prm_mkey_mode {
	DVSHARE_PRM_MKEY_MODE_PA = 0,  /**< physical addresses (kernel use) */
	DVSHARE_PRM_MKEY_MODE_MTT = 1, /**< direct: pages, here those of a UMEM */
	DVSHARE_PRM_MKEY_MODE_KLM = 2, /**< indirect: a list of KLM entries */
	DVSHARE_PRM_MKEY_MODE_KSM = 3, /**< indirect, fixed-size entries */
};

/** A memory key's context, as created or queried. */
struct dvshare_prm_mkey {
	uint8_t access_mode;     /**< DVSHARE_PRM_MKEY_MODE_* */
	uint8_t lr;              /**< 1: the device may read through the key */
	uint8_t lw;              /**< 1: the device may write through the key */
	uint8_t rr;              /**< 1: remote read (RDMA) */
	uint8_t rw;              /**< 1: remote write (RDMA) */
	uint8_t key;             /**< mkey_7_0: the key's low byte, the caller's choice */
	uint8_t log_page_size;   /**< log2 of the translation page size (direct key) */
	uint8_t umem_valid;      /**< parse only: mkey_umem_valid (the kernel sets it) */
	uint32_t qpn;            /**< DVSHARE_PRM_MKEY_NO_QPN */
	uint32_t pd;             /**< protection domain (ALLOC_PD) */
	uint64_t start_addr;     /**< first address of the key's range */
	uint64_t len;            /**< bytes in the range */
	uint32_t translations;   /**< translations_octword_size */
	uint32_t umem_id;        /**< direct key: the UMEM behind the range */
	uint64_t umem_offset;    /**< direct key: UMEM byte of start_addr */
};

/** One KLM entry: @c byte_count bytes of the indirect key, at @c address of key @c mkey. */
struct dvshare_prm_klm {
	uint32_t byte_count; /**< bytes this entry maps (0: an empty, padding entry) */
	uint32_t mkey;       /**< the direct key the bytes are in */
	uint64_t address;    /**< where they start, in that key's range */
};

/**
 * Write the mkc of @p m, and the words before it, into @p in. Internal
 * helper of the two builders below; not for applications.
 *
 * @param in  a command of at least DVSHARE_PRM_MKEY_SIZE bytes
 * @param m   the key's context
 */
static inline void dvshare_prm__mkey_put(void *in, const struct dvshare_prm_mkey *m)
{
	uint8_t *b = (uint8_t *)in;

	memset(b, 0, DVSHARE_PRM_MKEY_SIZE);
	dvshare_prm_put16(b, 0, DVSHARE_PRM_CMD_CREATE_MKEY);
	dvshare_prm_put8(b, DVSHARE_PRM_MKEY_MODE_4_2, (uint8_t)((m->access_mode >> 2) & 0x7) << 2);
	dvshare_prm_put8(b, DVSHARE_PRM_MKEY_ACCESS,
			 (uint8_t)((m->rw ? 0x20 : 0) | (m->rr ? 0x10 : 0) | (m->lw ? 0x08 : 0) |
				   (m->lr ? 0x04 : 0) | (m->access_mode & 0x3)));
	dvshare_prm_put24(b, DVSHARE_PRM_MKEY_QPN, m->qpn);
	dvshare_prm_put8(b, DVSHARE_PRM_MKEY_KEY, m->key);
	dvshare_prm_put24(b, DVSHARE_PRM_MKEY_PD, m->pd);
	dvshare_prm_put64(b, DVSHARE_PRM_MKEY_START_ADDR, m->start_addr);
	dvshare_prm_put64(b, DVSHARE_PRM_MKEY_LEN, m->len);
	dvshare_prm_put8(b, DVSHARE_PRM_MKEY_LOG_PAGE_SIZE, m->log_page_size & 0x1f);
}

/**
 * Build CREATE_MKEY for a direct key over UMEM @c m->umem_id: access mode
 * MTT, [@c start_addr, @c start_addr + @c len) at @c umem_offset of the
 * UMEM, with the translation sizes in pages of 1 << @c log_page_size bytes
 * (12 when 0). The output (16 bytes) holds mkey_index: the key is
 * dvshare_prm_mkey_created(). Give @c qpn DVSHARE_PRM_MKEY_NO_QPN and @c lr
 * (and @c lw for memory the device writes), as DPDK does.
 *
 * @param in  receives the command (DVSHARE_PRM_MKEY_SIZE bytes)
 * @param m   the key (@c access_mode and @c umem_valid are ignored)
 * @return DVSHARE_PRM_MKEY_SIZE
 */
static inline size_t dvshare_prm_mkey_create_direct(void *in, const struct dvshare_prm_mkey *m)
{
	struct dvshare_prm_mkey d = *m;
	uint64_t pages;

	d.access_mode = DVSHARE_PRM_MKEY_MODE_MTT;
	if (d.log_page_size == 0)
		d.log_page_size = 12;
	pages = (d.len + (1ull << d.log_page_size) - 1) >> d.log_page_size;
	d.translations = (uint32_t)((pages + 1) / 2); /* two 8-byte MTT entries per octword */
	dvshare_prm__mkey_put(in, &d);
	dvshare_prm_put32(in, DVSHARE_PRM_MKEY_TRANSLATIONS, d.translations);
	dvshare_prm_put32(in, DVSHARE_PRM_MKEY_TRANSLATIONS_ACTUAL, d.translations);
	dvshare_prm_put32(in, DVSHARE_PRM_MKEY_UMEM_ID, d.umem_id);
	dvshare_prm_put64(in, DVSHARE_PRM_MKEY_UMEM_OFFSET, d.umem_offset);
	return DVSHARE_PRM_MKEY_SIZE;
}

/**
 * Build CREATE_MKEY for an indirect key (access mode KLM) over @p n
 * pieces of direct keys, the first at @c m->start_addr, @c m->len bytes in
 * all (the sum of the byte counts). At most 1 << log_max_klm_list_size
 * entries (dvshare_prm_hca_caps); @c log_page_size, @c umem_id and
 * @c umem_offset are ignored.
 *
 * @param in   receives the command (DVSHARE_PRM_MKEY_KLM_SIZE(@p n) bytes)
 * @param m    the key
 * @param klm  the @p n entries, in address order
 * @param n    how many
 * @return DVSHARE_PRM_MKEY_KLM_SIZE(@p n)
 */
static inline size_t dvshare_prm_mkey_create_klm(void *in, const struct dvshare_prm_mkey *m,
						 const struct dvshare_prm_klm *klm, unsigned int n)
{
	struct dvshare_prm_mkey d = *m;
	const size_t len = DVSHARE_PRM_MKEY_KLM_SIZE(n);
	const uint32_t octwords = (uint32_t)((len - DVSHARE_PRM_MKEY_SIZE) / DVSHARE_PRM_KLM_SIZE);
	uint8_t *e = (uint8_t *)in + DVSHARE_PRM_MKEY_KLM;

	d.access_mode = DVSHARE_PRM_MKEY_MODE_KLM;
	d.log_page_size = 0;
	dvshare_prm__mkey_put(in, &d);
	dvshare_prm_put32(in, DVSHARE_PRM_MKEY_TRANSLATIONS, octwords);
	dvshare_prm_put32(in, DVSHARE_PRM_MKEY_TRANSLATIONS_ACTUAL, octwords);
	memset(e, 0, len - DVSHARE_PRM_MKEY_SIZE);
	for (unsigned int i = 0; i < n; i++, e += DVSHARE_PRM_KLM_SIZE) {
		dvshare_prm_put32(e, 0, klm[i].byte_count);
		dvshare_prm_put32(e, 4, klm[i].mkey);
		dvshare_prm_put64(e, 8, klm[i].address);
	}
	return len;
}

/**
 * The key a successful CREATE_MKEY made: mkey_index (out byte 9, 24
 * bits) << 8 | the command's mkey_7_0. This is what a queue's
 * virtio_q_mkey and a KLM entry name.
 *
 * @param in   the CREATE_MKEY command
 * @param out  its output
 * @return the mkey.
 */
static inline uint32_t dvshare_prm_mkey_created(const void *in, const void *out)
{
	return dvshare_prm_get24(out, 9) << 8 | dvshare_prm_get8(in, DVSHARE_PRM_MKEY_KEY);
}

/**
 * Build QUERY_MKEY of key @p mkey (its mkey_index, @p mkey >> 8, at byte
 * 9). The output is DVSHARE_PRM_MKEY_QUERY_OUT_SIZE bytes
 * (dvshare_prm_mkey_parse()).
 *
 * @param in    receives the command (DVSHARE_PRM_HDR_SIZE bytes)
 * @param mkey  the key (dvshare_obj_id() of a published one)
 * @return DVSHARE_PRM_HDR_SIZE
 */
static inline size_t dvshare_prm_mkey_query(void *in, uint32_t mkey)
{
	dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_QUERY_MKEY, 0, 0);
	dvshare_prm_put24(in, 9, mkey >> 8);
	return DVSHARE_PRM_HDR_SIZE;
}

/**
 * Decode a key's context: from a QUERY_MKEY output, or from a CREATE_MKEY
 * command (whose UMEM fields the output does not hold).
 *
 * @param buf  a QUERY_MKEY output (its mkc at byte 16) or a CREATE_MKEY
 *             command, at least DVSHARE_PRM_MKEY_SIZE bytes
 * @param m    receives the fields, in host byte order
 */
static inline void dvshare_prm_mkey_parse(const void *buf, struct dvshare_prm_mkey *m)
{
	const uint8_t access = dvshare_prm_get8(buf, DVSHARE_PRM_MKEY_ACCESS);

	m->access_mode = (uint8_t)(((dvshare_prm_get8(buf, DVSHARE_PRM_MKEY_MODE_4_2) >> 2) & 0x7) << 2 |
				   (access & 0x3));
	m->rw = (access >> 5) & 1;
	m->rr = (access >> 4) & 1;
	m->lw = (access >> 3) & 1;
	m->lr = (access >> 2) & 1;
	m->umem_valid = (dvshare_prm_get8(buf, DVSHARE_PRM_MKEY_UMEM_VALID) >> 6) & 1;
	m->qpn = dvshare_prm_get24(buf, DVSHARE_PRM_MKEY_QPN);
	m->key = dvshare_prm_get8(buf, DVSHARE_PRM_MKEY_KEY);
	m->pd = dvshare_prm_get24(buf, DVSHARE_PRM_MKEY_PD);
	m->start_addr = dvshare_prm_get64(buf, DVSHARE_PRM_MKEY_START_ADDR);
	m->len = dvshare_prm_get64(buf, DVSHARE_PRM_MKEY_LEN);
	m->translations = dvshare_prm_get32(buf, DVSHARE_PRM_MKEY_TRANSLATIONS);
	m->log_page_size = dvshare_prm_get8(buf, DVSHARE_PRM_MKEY_LOG_PAGE_SIZE) & 0x1f;
	m->umem_id = dvshare_prm_get32(buf, DVSHARE_PRM_MKEY_UMEM_ID);
	m->umem_offset = dvshare_prm_get64(buf, DVSHARE_PRM_MKEY_UMEM_OFFSET);
}

/**
 * Decode KLM entry @p i of an indirect key's CREATE_MKEY command.
 *
 * @param in   the command
 * @param i    the entry, below its translations_octword_actual_size
 * @param klm  receives the entry
 */
static inline void dvshare_prm_klm_parse(const void *in, unsigned int i, struct dvshare_prm_klm *klm)
{
	const uint8_t *e = (const uint8_t *)in + DVSHARE_PRM_MKEY_KLM + DVSHARE_PRM_KLM_SIZE * i;

	klm->byte_count = dvshare_prm_get32(e, 0);
	klm->mkey = dvshare_prm_get32(e, 4);
	klm->address = dvshare_prm_get64(e, 8);
}

/* ------------------------------------------- transport domain and TIS */

/*
 * A VIRTIO_NET_Q sends through a TIS (its tisn_or_qpn), and a TIS belongs
 * to a transport domain: DPDK's vdpa/mlx5 (mlx5_vdpa_create_dev_resources)
 * and Linux's mlx5_vdpa (mlx5_vnet.c) both make one domain and one TIS per
 * device before any queue. The kernel lets a DEVX context create both and
 * builds DEALLOC_TRANSPORT_DOMAIN and DESTROY_TIS itself.
 */

/** Size of a CREATE_TIS input: 32-byte header, then the 160-byte tisc. */
#define DVSHARE_PRM_CREATE_TIS_SIZE 192u

/** Byte offsets in the CREATE_TIS input. */
enum dvshare_prm_tis_off {
	DVSHARE_PRM_TIS_CTX = 32,              /**< the tisc */
	DVSHARE_PRM_TIS_LAG_AFFINITY = 32,     /**< bits 3:0: lag_tx_port_affinity */
	DVSHARE_PRM_TIS_PRIO = 33,             /**< bits 3:0 */
	DVSHARE_PRM_TIS_TRANSPORT_DOMAIN = 69, /**< 24 bits */
};

/**
 * Build ALLOC_TRANSPORT_DOMAIN (16 bytes). The output (16 bytes) holds
 * the transport_domain (dvshare_prm_created_id()).
 *
 * @param in  receives the command (DVSHARE_PRM_HDR_SIZE bytes)
 * @return DVSHARE_PRM_HDR_SIZE
 */
static inline size_t dvshare_prm_alloc_td(void *in)
{
	return dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_ALLOC_TRANSPORT_DOMAIN, 0, 0);
}

/**
 * Build CREATE_TIS on transport domain @p td. The output (16 bytes) holds
 * the tisn (dvshare_prm_created_id()).
 *
 * @param in        receives the command (DVSHARE_PRM_CREATE_TIS_SIZE bytes)
 * @param td        transport domain (ALLOC_TRANSPORT_DOMAIN's id)
 * @param affinity  lag_tx_port_affinity: 0 lets the device choose, N > 0
 *                  proposes port N (DPDK's vdpa driver gives 1 per port
 *                  from 1)
 * @return DVSHARE_PRM_CREATE_TIS_SIZE
 */
static inline size_t dvshare_prm_create_tis(void *in, uint32_t td, uint8_t affinity)
{
	memset(in, 0, DVSHARE_PRM_CREATE_TIS_SIZE);
	dvshare_prm_put16(in, 0, DVSHARE_PRM_CMD_CREATE_TIS);
	dvshare_prm_put8(in, DVSHARE_PRM_TIS_LAG_AFFINITY, affinity & 0xf);
	dvshare_prm_put24(in, DVSHARE_PRM_TIS_TRANSPORT_DOMAIN, td);
	return DVSHARE_PRM_CREATE_TIS_SIZE;
}

/* -------------------------------------------------------- VIRTIO_NET_Q */

/** CREATE and MODIFY input, and QUERY output: header + virtio_net_q (192 B). */
#define DVSHARE_PRM_VIRTQ_SIZE 208u

/** Byte offsets in the 208-byte VIRTIO_NET_Q command. */
enum dvshare_prm_virtq_off {
	DVSHARE_PRM_VIRTQ_MODIFY_SELECT = 16,   /**< u64 */
	DVSHARE_PRM_VIRTQ_OFFLOADS = 32,        /**< bits 7..4: tso4 tso6 tx_csum rx_csum */
	DVSHARE_PRM_VIRTQ_STATE = 35,           /**< bits 3:0 */
	DVSHARE_PRM_VIRTQ_TISN_OR_QPN = 37,     /**< 24 bits */
	DVSHARE_PRM_VIRTQ_HW_AVAIL_IDX = 56,    /**< u16 */
	DVSHARE_PRM_VIRTQ_HW_USED_IDX = 58,     /**< u16 */
	DVSHARE_PRM_VIRTQ_Q_TYPE = 80,          /**< u8 */
	DVSHARE_PRM_VIRTQ_EVENT_MODE = 81,      /**< bits 2:0 */
	DVSHARE_PRM_VIRTQ_QUEUE_INDEX = 82,     /**< u16 */
	DVSHARE_PRM_VIRTQ_VERSION = 84,         /**< bit 6: virtio_version_1_0 */
	DVSHARE_PRM_VIRTQ_EVENT_QPN = 85,       /**< 24 bits: event_qpn_or_msix */
	DVSHARE_PRM_VIRTQ_DB_STRIDE_IDX = 88,   /**< u16 */
	DVSHARE_PRM_VIRTQ_QUEUE_SIZE = 90,      /**< u16 */
	DVSHARE_PRM_VIRTQ_DESC_ADDR = 96,       /**< u64 */
	DVSHARE_PRM_VIRTQ_USED_ADDR = 104,      /**< u64 */
	DVSHARE_PRM_VIRTQ_AVAIL_ADDR = 112,     /**< u64 */
	DVSHARE_PRM_VIRTQ_MKEY = 120,           /**< u32 virtio_q_mkey */
	DVSHARE_PRM_VIRTQ_ERROR_TYPE = 127,     /**< u8 */
	DVSHARE_PRM_VIRTQ_UMEM = 128,           /**< 3 x {u32 id, u32 size, u64 offset} */
	DVSHARE_PRM_VIRTQ_COUNTER_SET_ID = 176, /**< u32 */
	DVSHARE_PRM_VIRTQ_PD = 181,             /**< 24 bits */
};

/** Stride between the three UMEM descriptors of a VIRTIO_NET_Q. */
#define DVSHARE_PRM_VIRTQ_UMEM_STRIDE 16u

/** Queue states. */
enum dvshare_prm_virtq_state {
	DVSHARE_PRM_VIRTQ_STATE_INIT = 0,    /**< created; not processing the ring */
	DVSHARE_PRM_VIRTQ_STATE_RDY = 1,     /**< processing the ring (needs a valid mkey) */
	DVSHARE_PRM_VIRTQ_STATE_SUSPEND = 2, /**< stopped; ring indexes stable for a query */
	DVSHARE_PRM_VIRTQ_STATE_ERR = 3,     /**< failed; error_type says why */
};

/** Queue layouts (virtio_q_type). */
enum dvshare_prm_virtq_type {
	DVSHARE_PRM_VIRTQ_TYPE_SPLIT = 0,  /**< split virtqueue (descriptor, avail, used rings) */
	DVSHARE_PRM_VIRTQ_TYPE_PACKED = 1, /**< packed virtqueue (virtio 1.1) */
};

/** How the device signals the driver (event_mode). */
enum dvshare_prm_virtq_event {
	DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX = 0, /**< no event: the driver polls */
	DVSHARE_PRM_VIRTQ_EVENT_QP = 1,      /**< completion on QP event_qpn_or_msix */
	DVSHARE_PRM_VIRTQ_EVENT_MSIX = 2,    /**< MSI-X vector event_qpn_or_msix */
};

/** modify_field_select bit: state (DVSHARE_PRM_VIRTQ_STATE_*). */
#define DVSHARE_PRM_VIRTQ_MODIFY_STATE (1ull << 0)
/**
 * modify_field_select bit: dirty-page logging parameters (dirty_bitmap_mkey,
 * _size, _addr, vhost_log_page). Not in struct dvshare_prm_virtq: sent as 0.
 */
#define DVSHARE_PRM_VIRTQ_MODIFY_DIRTY_BITMAP_PARAMS (1ull << 3)
/**
 * modify_field_select bit: dirty_bitmap_dump_enable. Not in struct
 * dvshare_prm_virtq: sent as 0.
 */
#define DVSHARE_PRM_VIRTQ_MODIFY_DIRTY_BITMAP_DUMP_ENABLE (1ull << 4)
/** modify_field_select bit: event moderation period. Not in struct dvshare_prm_virtq: sent as 0. */
#define DVSHARE_PRM_VIRTQ_MODIFY_QUEUE_PERIOD (1ull << 5)
/** modify_field_select bit: desc_addr, used_addr, available_addr (cap virtio_net_q_addr_modify). */
#define DVSHARE_PRM_VIRTQ_MODIFY_ADDR (1ull << 6)
/** modify_field_select bit: hw_available_index (cap virtio_q_index_modify). */
#define DVSHARE_PRM_VIRTQ_MODIFY_HW_AVAILABLE_INDEX (1ull << 7)
/** modify_field_select bit: hw_used_index (cap virtio_q_index_modify). */
#define DVSHARE_PRM_VIRTQ_MODIFY_HW_USED_INDEX (1ull << 8)
/** modify_field_select bit: virtio_q_type (DVSHARE_PRM_VIRTQ_TYPE_*). */
#define DVSHARE_PRM_VIRTQ_MODIFY_Q_TYPE (1ull << 9)
/** modify_field_select bit: virtio_version_1_0. */
#define DVSHARE_PRM_VIRTQ_MODIFY_VERSION_1_0 (1ull << 10)
/** modify_field_select bit: virtio_q_mkey. */
#define DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY (1ull << 11)
/**
 * modify_field_select bit: the queue's feature (offload) bits. Not in struct
 * dvshare_prm_virtq: sent as 0.
 */
#define DVSHARE_PRM_VIRTQ_MODIFY_QUEUE_FEATURE_BIT_MASK (1ull << 12)
/** modify_field_select bit: event_mode (DVSHARE_PRM_VIRTQ_EVENT_*). */
#define DVSHARE_PRM_VIRTQ_MODIFY_EVENT_MODE (1ull << 13)

/** A VIRTIO_NET_Q's context, as created, modified or queried. */
struct dvshare_prm_virtq {
	uint16_t queue_index;          /**< virtio queue number, below max_num_virtio_queues */
	uint16_t queue_size;           /**< a power of two */
	uint8_t state;                 /**< DVSHARE_PRM_VIRTQ_STATE_* */
	uint8_t virtio_q_type;         /**< DVSHARE_PRM_VIRTQ_TYPE_* */
	uint8_t event_mode;            /**< DVSHARE_PRM_VIRTQ_EVENT_* */
	uint8_t virtio_version_1_0;    /**< 1: virtio 1.0 ring (little-endian), 0: legacy */
	uint8_t error_type;            /**< query only */
	uint16_t hw_available_index;   /**< next avail ring index the device reads */
	uint16_t hw_used_index;        /**< next used ring index the device writes */
	uint16_t doorbell_stride_idx;  /**< the queue's doorbell, in log_doorbell_stride units */
	uint32_t event_qpn_or_msix;    /**< QP (EVENT_QP) or MSI-X vector (EVENT_MSIX), 24 bits */
	uint32_t tisn_or_qpn;          /**< TIS (TX queue) or QP (RX queue), 24 bits */
	uint32_t pd;                   /**< from ALLOC_PD */
	uint32_t mkey;                 /**< virtio_q_mkey: guest memory */
	uint32_t counter_set_id;       /**< queue counters object, 0 for none */
	uint64_t desc_addr;            /**< descriptor ring address (through @c mkey) */
	uint64_t used_addr;            /**< used ring address (through @c mkey) */
	uint64_t available_addr;       /**< available ring address (through @c mkey) */
	struct {
		uint32_t id;           /**< umem_id */
		uint32_t size;         /**< dvshare_prm_virtq_umem_size() */
		uint64_t offset;       /**< start of the area in the UMEM, bytes */
	} umem[3];                     /**< device work areas, sized from the virtio caps */
};

/**
 * Write the virtio_net_q context of @p q after the header of @p in.
 * Internal helper of dvshare_prm_virtq_create() and
 * dvshare_prm_virtq_modify(); not for applications. Bytes 16 to 207 are
 * cleared first, so modify_field_select, the offloads and error_type are 0.
 *
 * @param in  a DVSHARE_PRM_VIRTQ_SIZE-byte command whose header is written
 * @param q   the context, in host byte order
 */
static inline void dvshare_prm__virtq_put(void *in, const struct dvshare_prm_virtq *q)
{
	uint8_t *b = (uint8_t *)in;

	memset(b + DVSHARE_PRM_HDR_SIZE, 0, DVSHARE_PRM_VIRTQ_SIZE - DVSHARE_PRM_HDR_SIZE);
	dvshare_prm_put8(b, DVSHARE_PRM_VIRTQ_STATE, q->state & 0xf);
	dvshare_prm_put24(b, DVSHARE_PRM_VIRTQ_TISN_OR_QPN, q->tisn_or_qpn);
	dvshare_prm_put16(b, DVSHARE_PRM_VIRTQ_HW_AVAIL_IDX, q->hw_available_index);
	dvshare_prm_put16(b, DVSHARE_PRM_VIRTQ_HW_USED_IDX, q->hw_used_index);
	dvshare_prm_put8(b, DVSHARE_PRM_VIRTQ_Q_TYPE, q->virtio_q_type);
	dvshare_prm_put8(b, DVSHARE_PRM_VIRTQ_EVENT_MODE, q->event_mode & 0x7);
	dvshare_prm_put16(b, DVSHARE_PRM_VIRTQ_QUEUE_INDEX, q->queue_index);
	dvshare_prm_put8(b, DVSHARE_PRM_VIRTQ_VERSION, q->virtio_version_1_0 ? 0x40 : 0);
	dvshare_prm_put24(b, DVSHARE_PRM_VIRTQ_EVENT_QPN, q->event_qpn_or_msix);
	dvshare_prm_put16(b, DVSHARE_PRM_VIRTQ_DB_STRIDE_IDX, q->doorbell_stride_idx);
	dvshare_prm_put16(b, DVSHARE_PRM_VIRTQ_QUEUE_SIZE, q->queue_size);
	dvshare_prm_put64(b, DVSHARE_PRM_VIRTQ_DESC_ADDR, q->desc_addr);
	dvshare_prm_put64(b, DVSHARE_PRM_VIRTQ_USED_ADDR, q->used_addr);
	dvshare_prm_put64(b, DVSHARE_PRM_VIRTQ_AVAIL_ADDR, q->available_addr);
	dvshare_prm_put32(b, DVSHARE_PRM_VIRTQ_MKEY, q->mkey);
	for (unsigned int i = 0; i < 3; i++) {
		size_t u = DVSHARE_PRM_VIRTQ_UMEM + DVSHARE_PRM_VIRTQ_UMEM_STRIDE * i;
		dvshare_prm_put32(b, u, q->umem[i].id);
		dvshare_prm_put32(b, u + 4, q->umem[i].size);
		dvshare_prm_put64(b, u + 8, q->umem[i].offset);
	}
	dvshare_prm_put32(b, DVSHARE_PRM_VIRTQ_COUNTER_SET_ID, q->counter_set_id);
	dvshare_prm_put24(b, DVSHARE_PRM_VIRTQ_PD, q->pd);
}

/**
 * Build CREATE_GENERAL_OBJECT(VIRTIO_NET_Q) from @p q (its error_type is
 * ignored). The output (16 bytes) holds the obj_id.
 *
 * @param in  receives the command (DVSHARE_PRM_VIRTQ_SIZE bytes)
 * @param q   the new queue's context (state DVSHARE_PRM_VIRTQ_STATE_INIT)
 * @return DVSHARE_PRM_VIRTQ_SIZE
 */
static inline size_t dvshare_prm_virtq_create(void *in, const struct dvshare_prm_virtq *q)
{
	dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT,
			    DVSHARE_PRM_OBJ_VIRTIO_NET_Q, 0);
	dvshare_prm__virtq_put(in, q);
	return DVSHARE_PRM_VIRTQ_SIZE;
}

/**
 * Build MODIFY_GENERAL_OBJECT of queue @p obj_id: the fields named by
 * @p select (DVSHARE_PRM_VIRTQ_MODIFY_*) are taken from @p q. Which bits a
 * device takes depends on its virtio caps (vnet_modify_ext and the other
 * modify caps); the output is 16 bytes.
 *
 * @param in      receives the command (DVSHARE_PRM_VIRTQ_SIZE bytes)
 * @param obj_id  the queue's obj_id (dvshare_obj_id())
 * @param select  modify_field_select: OR of DVSHARE_PRM_VIRTQ_MODIFY_* bits
 * @param q       new values; fields @p select does not name are ignored
 * @return DVSHARE_PRM_VIRTQ_SIZE
 */
static inline size_t dvshare_prm_virtq_modify(void *in, uint32_t obj_id, uint64_t select,
					      const struct dvshare_prm_virtq *q)
{
	dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_MODIFY_GENERAL_OBJECT,
			    DVSHARE_PRM_OBJ_VIRTIO_NET_Q, obj_id);
	dvshare_prm__virtq_put(in, q);
	dvshare_prm_put64(in, DVSHARE_PRM_VIRTQ_MODIFY_SELECT, select);
	return DVSHARE_PRM_VIRTQ_SIZE;
}

/**
 * Build MODIFY_GENERAL_OBJECT moving queue @p obj_id to @p state
 * (modify_field_select DVSHARE_PRM_VIRTQ_MODIFY_STATE only).
 *
 * @param in      receives the command (DVSHARE_PRM_VIRTQ_SIZE bytes)
 * @param obj_id  the queue's obj_id (dvshare_obj_id())
 * @param state   DVSHARE_PRM_VIRTQ_STATE_*
 * @return DVSHARE_PRM_VIRTQ_SIZE
 */
static inline size_t dvshare_prm_virtq_modify_state(void *in, uint32_t obj_id, uint8_t state)
{
	struct dvshare_prm_virtq q;

	memset(&q, 0, sizeof(q));
	q.state = state;
	return dvshare_prm_virtq_modify(in, obj_id, DVSHARE_PRM_VIRTQ_MODIFY_STATE, &q);
}

/**
 * Build QUERY_GENERAL_OBJECT of queue @p obj_id; its output is
 * DVSHARE_PRM_VIRTQ_SIZE bytes (dvshare_prm_virtq_parse()).
 *
 * @param in      receives the command (DVSHARE_PRM_HDR_SIZE bytes)
 * @param obj_id  the queue's obj_id (dvshare_obj_id())
 * @return DVSHARE_PRM_HDR_SIZE
 */
static inline size_t dvshare_prm_virtq_query(void *in, uint32_t obj_id)
{
	return dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_QUERY_GENERAL_OBJECT,
				   DVSHARE_PRM_OBJ_VIRTIO_NET_Q, obj_id);
}

/**
 * Decode a VIRTIO_NET_Q query output (or a create/modify input).
 *
 * @param out  DVSHARE_PRM_VIRTQ_SIZE bytes: the output of a successful
 *             dvshare_prm_virtq_query(), or a command built here
 * @param q    receives every field, in host byte order
 */
static inline void dvshare_prm_virtq_parse(const void *out, struct dvshare_prm_virtq *q)
{
	const uint8_t *b = (const uint8_t *)out;

	q->state = dvshare_prm_get8(b, DVSHARE_PRM_VIRTQ_STATE) & 0xf;
	q->tisn_or_qpn = dvshare_prm_get24(b, DVSHARE_PRM_VIRTQ_TISN_OR_QPN);
	q->hw_available_index = dvshare_prm_get16(b, DVSHARE_PRM_VIRTQ_HW_AVAIL_IDX);
	q->hw_used_index = dvshare_prm_get16(b, DVSHARE_PRM_VIRTQ_HW_USED_IDX);
	q->virtio_q_type = dvshare_prm_get8(b, DVSHARE_PRM_VIRTQ_Q_TYPE);
	q->event_mode = dvshare_prm_get8(b, DVSHARE_PRM_VIRTQ_EVENT_MODE) & 0x7;
	q->queue_index = dvshare_prm_get16(b, DVSHARE_PRM_VIRTQ_QUEUE_INDEX);
	q->virtio_version_1_0 = (dvshare_prm_get8(b, DVSHARE_PRM_VIRTQ_VERSION) >> 6) & 1;
	q->event_qpn_or_msix = dvshare_prm_get24(b, DVSHARE_PRM_VIRTQ_EVENT_QPN);
	q->doorbell_stride_idx = dvshare_prm_get16(b, DVSHARE_PRM_VIRTQ_DB_STRIDE_IDX);
	q->queue_size = dvshare_prm_get16(b, DVSHARE_PRM_VIRTQ_QUEUE_SIZE);
	q->desc_addr = dvshare_prm_get64(b, DVSHARE_PRM_VIRTQ_DESC_ADDR);
	q->used_addr = dvshare_prm_get64(b, DVSHARE_PRM_VIRTQ_USED_ADDR);
	q->available_addr = dvshare_prm_get64(b, DVSHARE_PRM_VIRTQ_AVAIL_ADDR);
	q->mkey = dvshare_prm_get32(b, DVSHARE_PRM_VIRTQ_MKEY);
	q->error_type = dvshare_prm_get8(b, DVSHARE_PRM_VIRTQ_ERROR_TYPE);
	for (unsigned int i = 0; i < 3; i++) {
		size_t u = DVSHARE_PRM_VIRTQ_UMEM + DVSHARE_PRM_VIRTQ_UMEM_STRIDE * i;
		q->umem[i].id = dvshare_prm_get32(b, u);
		q->umem[i].size = dvshare_prm_get32(b, u + 4);
		q->umem[i].offset = dvshare_prm_get64(b, u + 8);
	}
	q->counter_set_id = dvshare_prm_get32(b, DVSHARE_PRM_VIRTQ_COUNTER_SET_ID);
	q->pd = dvshare_prm_get24(b, DVSHARE_PRM_VIRTQ_PD);
}

/* ------------------------------------------------ VIRTIO_Q_COUNTERS */

/**
 * Size of the VIRTIO_Q_COUNTERS create input and query output: header and
 * the counters, as DPDK's mlx5_devx_cmd_create_virtio_q_counters() sends
 * them (72 bytes).
 */
#define DVSHARE_PRM_VIRTQ_COUNTERS_SIZE 72u

/** Byte offsets in the VIRTIO_Q_COUNTERS query output. */
enum dvshare_prm_virtq_counters_off {
	DVSHARE_PRM_VQC_RECEIVED_DESC = 32,    /**< u64 */
	DVSHARE_PRM_VQC_COMPLETED_DESC = 40,   /**< u64 */
	DVSHARE_PRM_VQC_ERROR_CQES = 48,       /**< u32 */
	DVSHARE_PRM_VQC_BAD_DESC_ERRORS = 52,  /**< u32 */
	DVSHARE_PRM_VQC_EXCEED_MAX_CHAIN = 56, /**< u32 */
	DVSHARE_PRM_VQC_INVALID_BUFFER = 60,   /**< u32 */
};

/** A queue's counters (a VIRTIO_Q_COUNTERS object, named by counter_set_id). */
struct dvshare_prm_virtq_counters {
	uint64_t received_desc;    /**< descriptors the device took from the ring */
	uint64_t completed_desc;   /**< descriptors it returned as used */
	uint32_t error_cqes;       /**< completions with an error */
	uint32_t bad_desc_errors;  /**< malformed descriptors */
	uint32_t exceed_max_chain; /**< chains longer than the device takes */
	uint32_t invalid_buffer;   /**< buffers outside the queue's memory */
};

/**
 * Build CREATE_GENERAL_OBJECT(VIRTIO_Q_COUNTERS). Offered when the general
 * caps list the type (dvshare_prm_hca_has_obj()); the output (16 bytes)
 * holds the obj_id, which a queue takes as its counter_set_id.
 *
 * @param in  receives the command (DVSHARE_PRM_VIRTQ_COUNTERS_SIZE bytes)
 * @return DVSHARE_PRM_VIRTQ_COUNTERS_SIZE
 */
static inline size_t dvshare_prm_virtq_counters_create(void *in)
{
	memset(in, 0, DVSHARE_PRM_VIRTQ_COUNTERS_SIZE);
	dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT,
			    DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS, 0);
	return DVSHARE_PRM_VIRTQ_COUNTERS_SIZE;
}

/**
 * Build QUERY_GENERAL_OBJECT of counters @p obj_id; its output is
 * DVSHARE_PRM_VIRTQ_COUNTERS_SIZE bytes (dvshare_prm_virtq_counters_parse()).
 *
 * @param in      receives the command (DVSHARE_PRM_HDR_SIZE bytes)
 * @param obj_id  the counters' obj_id (dvshare_obj_id())
 * @return DVSHARE_PRM_HDR_SIZE
 */
static inline size_t dvshare_prm_virtq_counters_query(void *in, uint32_t obj_id)
{
	return dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_QUERY_GENERAL_OBJECT,
				   DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS, obj_id);
}

/**
 * Decode a VIRTIO_Q_COUNTERS query output.
 *
 * @param out  DVSHARE_PRM_VIRTQ_COUNTERS_SIZE bytes of a successful query
 * @param c    receives the counters, in host byte order
 */
static inline void dvshare_prm_virtq_counters_parse(const void *out,
						    struct dvshare_prm_virtq_counters *c)
{
	c->received_desc = dvshare_prm_get64(out, DVSHARE_PRM_VQC_RECEIVED_DESC);
	c->completed_desc = dvshare_prm_get64(out, DVSHARE_PRM_VQC_COMPLETED_DESC);
	c->error_cqes = dvshare_prm_get32(out, DVSHARE_PRM_VQC_ERROR_CQES);
	c->bad_desc_errors = dvshare_prm_get32(out, DVSHARE_PRM_VQC_BAD_DESC_ERRORS);
	c->exceed_max_chain = dvshare_prm_get32(out, DVSHARE_PRM_VQC_EXCEED_MAX_CHAIN);
	c->invalid_buffer = dvshare_prm_get32(out, DVSHARE_PRM_VQC_INVALID_BUFFER);
}

/**
 * Name of a queue state, for logs and tools.
 *
 * @param state  DVSHARE_PRM_VIRTQ_STATE_* (e.g. dvshare_prm_virtq.state)
 * @return a static string: "init", "rdy", "suspend", "err", or "unknown"
 *   for any other value.
 */
static inline const char *dvshare_prm_virtq_state_str(uint8_t state)
{
	switch (state) {
	case DVSHARE_PRM_VIRTQ_STATE_INIT: return "init";
	case DVSHARE_PRM_VIRTQ_STATE_RDY: return "rdy";
	case DVSHARE_PRM_VIRTQ_STATE_SUSPEND: return "suspend";
	case DVSHARE_PRM_VIRTQ_STATE_ERR: return "err";
	default: return "unknown";
	}
}

#ifdef __cplusplus
}
#endif

#endif /* DVSHARE_PRM_H */
