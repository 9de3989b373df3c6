// The descriptor of every template the compiler instantiates with integer parameters of its
// own (see template_descriptor.h): which Params field each SystemVerilog parameter holds, in
// the order a node lists them. The graph lowering (st_matmul, st_reduce), the LLM lowering and
// engine join (the LLM kernels, the layer loop), the fork and converter passes, the timing and
// resource catalogs, the plan's table bindings, the reports and the HBM image read them from
// here. Parameters that name files (table paths) are the plan's, added beside these.
#pragma once

#include "ir/converter_program.h"
#include "model/argmax_model.h"
#include "model/attention_model.h"
#include "model/elementwise_model.h"
#include "model/embedding_model.h"
#include "model/fork_resources.h"
#include "model/gemv_engine_model.h"
#include "model/layer_loop_model.h"
#include "model/linear_model.h"
#include "model/matmul_model.h"
#include "model/norm_model.h"
#include "model/reduce_model.h"
#include "model/rope_model.h"
#include "model/template_descriptor.h"
#include "model/width_converter_model.h"

namespace st::model {

const TemplateDescriptor<LinearParams> &linearTemplate();
const TemplateDescriptor<NormParams> &normTemplate();
const TemplateDescriptor<RopeParams> &ropeTemplate();
const TemplateDescriptor<AttentionParams> &attentionTemplate();
const TemplateDescriptor<EmbeddingParams> &embeddingTemplate();
const TemplateDescriptor<ActivationParams> &activationTemplate();
const TemplateDescriptor<GatedActivationParams> &gatedActivationTemplate();
const TemplateDescriptor<ResidualAddParams> &residualAddTemplate();
const TemplateDescriptor<ArgmaxParams> &argmaxTemplate();
const TemplateDescriptor<WidthConverterParams> &widthConverterTemplate();
/// The joined GEMV engine (llm/gemv_engine_join).
const TemplateDescriptor<numerics::GemvEngineShape> &gemvEngineTemplate();
/// A stage graph's call node of the engine, before the join (same module, other parameters).
const TemplateDescriptor<GemvCallParams> &gemvCallTemplate();
const TemplateDescriptor<MatmulParams> &matmulTemplate();
const TemplateDescriptor<ReduceParams> &reduceTemplate();
const TemplateDescriptor<ForkParams> &forkTemplate();
/// st_layer_loop; LoopDepth is left at its default, VecTokens.
const TemplateDescriptor<LayerLoopParams> &layerLoopTemplate();
/// st_layout_converter's sizes; its three table files are the plan's (graph_plan).
const TemplateDescriptor<ir::ConverterLimits> &layoutConverterTemplate();

} // namespace st::model
