// The HBM image files of a planned image (plan/hbm_plan.h, docs/hbm-image.md): the bytes of every
// pseudo-channel, the JSON manifest that says where each buffer lies, and the RoPE phase-table
// files of st_rope; and the manifest read back into a plan (for `sim` and the run check).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/decode_program.h"
#include "plan/hbm_plan.h"

namespace st::gen {

/// Reads a manifest.json (docs/hbm-image.md) back into a plan: the device's channel count and
/// size, max context, the used bytes per channel and every buffer's placement (name, kind,
/// stage, op, channels, address, layers, layer bytes and stride, row bytes, linear parameters);
/// not the contents nor the device's alignment (left at plan::HbmDevice's default). So a later step
/// (`sim`, the run check) finds the buffers where the compiler put them without planning again.
/// Throws st::Error naming the file and the field.
plan::HbmImagePlan readHbmManifest(const std::string &manifestPath);

/// Writes into `directory` (created): hbm_pc<NN>.bin per used channel (its used bytes; zero
/// regions are left as sparse holes), rope_<op>.mem per RoPE op (writeRopePhaseFile), and
/// manifest.json. Streams layer by layer, so memory stays one layer's bytes.
void writeHbmImage(const plan::HbmImagePlan &plan, const std::string &directory);

/// The manifest alone (also written by writeHbmImage): docs/hbm-image.md.
std::string hbmManifestJson(const plan::HbmImagePlan &plan);

} // namespace st::gen
