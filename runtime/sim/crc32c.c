/* CRC32C (Castagnoli): reflected polynomial 0x82F63B78, initial value and
 * final XOR 0xFFFFFFFF, as DPDK's rte_hash_crc and iSCSI. A 16-entry table
 * (one nibble at a time) keeps it small and free of start-up code. */
#include "sim_internal.h"

static const uint32_t mlip_crc32c_nibble[16] = {
  0x00000000u, 0x105EC76Fu, 0x20BD8EDEu, 0x30E349B1u, 0x417B1DBCu, 0x5125DAD3u, 0x61C69362u, 0x7198540Du,
  0x82F63B78u, 0x92A8FC17u, 0xA24BB5A6u, 0xB21572C9u, 0xC38D26C4u, 0xD3D3E1ABu, 0xE330A81Au, 0xF36E6F75u,
};

uint32_t mlip_crc32c(uint32_t crc, const void* data, size_t size) {
  const uint8_t* p = (const uint8_t*)data;
  size_t i;
  crc = ~crc;
  if (p == NULL) {
    return ~crc;
  }
  for (i = 0; i < size; ++i) {
    crc ^= (uint32_t)p[i];
    crc = (crc >> 4) ^ mlip_crc32c_nibble[crc & 0xFu];
    crc = (crc >> 4) ^ mlip_crc32c_nibble[crc & 0xFu];
  }
  return ~crc;
}
