/* A QEMU TCG plugin that counts executed guest instructions per translated
 * block (bench/cortex_m/run.sh): at exit it prints "tb <start address hex>
 * <instructions>" for every block that ran, then "insns <total>". Debian's
 * QEMU 7.2 supports plugins but ships no qemu-plugin.h, so the part of the
 * plugin API (version 1) used here is declared below, as QEMU 7.2's
 * include/qemu/qemu-plugin.h declares it. Each block's count is an inline
 * add (no callback per execution), so the count costs little time. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb* tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb, enum qemu_plugin_op op, void* ptr,
                                              uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);
void qemu_plugin_outs(const char* string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One record per translation of a block (a block translated twice has two:
 * the script adds them up by address). */
typedef struct block {
  uint64_t pc, executed_insns;
  struct block* next;
} block;
static block* blocks;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  block* b = calloc(1, sizeof *b);
  (void)id;
  if (!b) abort();
  b->pc = qemu_plugin_tb_vaddr(tb);
  b->next = blocks;
  blocks = b;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->executed_insns,
                                           qemu_plugin_tb_n_insns(tb));
}

static void on_plugin_exit(qemu_plugin_id_t id, void* unused) {
  char line[80];
  uint64_t total = 0;
  const block* b;
  (void)id;
  (void)unused;
  for (b = blocks; b; b = b->next) {
    if (!b->executed_insns) continue;
    snprintf(line, sizeof line, "tb %" PRIx64 " %" PRIu64 "\n", b->pc, b->executed_insns);
    qemu_plugin_outs(line);
    total += b->executed_insns;
  }
  snprintf(line, sizeof line, "insns %" PRIu64 "\n", total);
  qemu_plugin_outs(line);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                                               char** argv) {
  (void)info;
  (void)argc;
  (void)argv;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_plugin_exit, NULL);
  return 0;
}
