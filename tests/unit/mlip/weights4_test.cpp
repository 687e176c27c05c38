// layers::q8_weight_bytes (mlip/layers/rules.h): an 8-bit CONV2D's or FC's
// WEIGHTS bytes, int8 as they are, or for a node PTQ marked 4-bit one
// mlip/kq4_format.h record per output channel (the bytes by hand), its
// block the node's (a Conv's: the whole row), halved where the MLIP's order
// mixes a block no exponent holds; values no int4 times 2^0..2^4 gives are
// refused naming the node.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/graph.h"
#include "mlip/layers/rules.h"
#include "mlip/region_ir.h"
#include "ops/quant.h"
#include "support/error.h"

namespace mlipc::unit_mlip_weights4 {
namespace {

using mlip::RLayer;
using mlip::layers::q8_weight_bytes;

Node marked(int64_t block) {
  Node n;
  n.op = "QLinearConv";
  n.name = "fc";
  n.attrs.set(ops::kWeightBitsAttr, int64_t{4});
  if (block > 0) n.attrs.set(ops::kWeightBlockAttr, block);
  return n;
}

std::vector<int> ints(const std::vector<uint8_t>& b) { return std::vector<int>(b.begin(), b.end()); }

TEST(MlipWeights4, UnmarkedWeightsAreTheirInt8Bytes) {
  Node n;
  n.op = "QLinearConv";
  RLayer l;
  EXPECT_EQ(ints(q8_weight_bytes(n, l, {1, -1, 127, -128}, 2, 2)), (std::vector<int>{1, 255, 127, 128}));
  EXPECT_EQ(l.w4_block, 0);
}

TEST(MlipWeights4, OneRecordPerRowLowNibbleFirst) {
  // Two rows of K = 3 in blocks of 2: row 0 q -8, 7 | -5 at e 0 | 2
  // (-8, 7, -20), row 1 q 3, -5 | 5 at e 1 | 4 (6, -10, 80). Each row
  // ceil(3 / 2) = 2 bytes of nibbles (the odd count's high nibble 0) and
  // one byte of exponents.
  RLayer l;
  EXPECT_EQ(ints(q8_weight_bytes(marked(2), l, {-8, 7, -20, 6, -10, 80}, 2, 3)),
            (std::vector<int>{0x78, 0x0B, 0x20, 0xB3, 0x05, 0x41}));
  EXPECT_EQ(l.w4_block, 2);
  // A Conv (no block mark): its whole row, one exponent (7 * 2^0 .. ).
  EXPECT_EQ(ints(q8_weight_bytes(marked(0), l, {-7, 7, 1}, 1, 3)), (std::vector<int>{0x79, 0x01, 0x00}));
  EXPECT_EQ(l.w4_block, 3);
}

TEST(MlipWeights4, AMixedBlockHalvesTheLayersBlock) {
  // Blocks of 4 in the ONNX order held these values, but in the MLIP's
  // order (a flattened NHWC input) 1, 3 and 16, 32 share a block: no one
  // exponent holds 1 and 32, so the layer's block is halved to 2: 1, 3 at
  // e 0 and 16, 32 at e 3 (q 2, 4).
  RLayer l;
  EXPECT_EQ(ints(q8_weight_bytes(marked(4), l, {1, 3, 16, 32}, 1, 4)), (std::vector<int>{0x31, 0x42, 0x30}));
  EXPECT_EQ(l.w4_block, 2);
}

TEST(MlipWeights4, ValuesNoInt4GivesAreRefusedNamingTheNode) {
  RLayer l;
  try {
    q8_weight_bytes(marked(2), l, {1, 9}, 1, 2);  // 9: odd and above 7
    FAIL() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("node 'fc' (QLinearConv)"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("marked 4-bit"));
  }
}

}  // namespace
}  // namespace mlipc::unit_mlip_weights4
