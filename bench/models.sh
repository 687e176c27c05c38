# The bench's model list, sourced by bench/run.sh and bench/aarch64_bits.sh:
# the five shared models (name:folder) and the networks bench/make_models.py
# builds into bench/.models with python3-torch.
BENCH_SHARED=("seed_digits_cnn:examples/digits" "kws_dscnn:tests/data/models/mlperf_tiny_kws_dscnn"
              "vww_mobilenet_v1_025:tests/data/models/mlperf_tiny_vww_mobilenet_v1_025"
              "ic_resnet8:tests/data/models/mlperf_tiny_ic_resnet8"
              "ad_fc_autoencoder:tests/data/models/mlperf_tiny_ad_fc_autoencoder")
BENCH_TORCH=(resnet18 mobilenet_v2 efficientnet_b0 mobilenet_v3_large
             lstm_autoencoder bigru_classifier crnn_bilstm convtranspose_decoder vit_tiny kws_transformer
             convnext_stage mobilevit_block)

# Makes the torch-built networks (python3 $PY with torch and torchvision)
# and appends them to MODELS as name:folder; returns 1 without torch.
bench_add_torch_models() {
  "$PY" -c "import torch, torchvision" 2>/dev/null || return 1
  "$PY" bench/make_models.py bench/.models 2>/dev/null
  local n
  for n in "${BENCH_TORCH[@]}"; do MODELS+=("$n:bench/.models/$n"); done
}
