// Test-only top (tests/rtl/decode_loop): the control skeleton of the LLM accelerator's decode
// loop (docs/accelerator.md §1) with the numerics left to the testbench. st_token_source emits
// each step's id (token_*), the testbench's "embedding" answers with a vector on first_*,
// st_layer_loop runs it Layers times through the testbench's "block" (block_* -> loop_*), whose
// per-layer command comes from an st_step_sequencer (cmd_*), and the testbench's "argmax" turns
// each last_* vector into the id on argmax_*. One start handshake starts the token source and
// the sequencer together.
`default_nettype none

module st_decode_loop_harness #(
    parameter int unsigned IdBits = 16,
    parameter int unsigned Width = 16,
    parameter int unsigned VecTokens = 4,
    parameter int unsigned Layers = 3,
    parameter int unsigned StepBits = 8,
    parameter int unsigned RomBits = 16,
    parameter RomFile = "",
    parameter int unsigned LayerBits = (Layers > 1) ? $clog2(Layers) : 1
) (
    input  wire                 clk_i,
    input  wire                 rst_ni,
    input  wire                 start_valid_i,
    output logic                start_ready_o,
    input  wire  [StepBits-1:0] n_prompt_i,
    input  wire  [StepBits-1:0] num_steps_i,
    input  wire                 prompt_valid_i,
    output logic                prompt_ready_o,
    input  wire  [  IdBits-1:0] prompt_data_i,
    output logic                token_valid_o,
    input  wire                 token_ready_i,
    output logic [  IdBits-1:0] token_data_o,
    input  wire                 argmax_valid_i,
    output logic                argmax_ready_o,
    input  wire  [  IdBits-1:0] argmax_data_i,
    output logic                gen_valid_o,
    input  wire                 gen_ready_i,
    output logic [  IdBits-1:0] gen_data_o,
    output logic                done_o,
    input  wire                 first_valid_i,
    output logic                first_ready_o,
    input  wire  [   Width-1:0] first_data_i,
    output logic                block_valid_o,
    input  wire                 block_ready_i,
    output logic [   Width-1:0] block_data_o,
    input  wire                 loop_valid_i,
    output logic                loop_ready_o,
    input  wire  [   Width-1:0] loop_data_i,
    output logic                last_valid_o,
    input  wire                 last_ready_i,
    output logic [   Width-1:0] last_data_o,
    output logic                cmd_valid_o,
    input  wire                 cmd_ready_i,
    output logic [StepBits-1:0] cmd_step_o,
    output logic [LayerBits-1:0] cmd_layer_o,
    output logic [ RomBits-1:0] cmd_word_o,
    output logic                cmd_done_o
);

  logic ts_start_ready, seq_start_ready;
  assign start_ready_o = ts_start_ready && seq_start_ready;

  st_token_source #(
      .IdBits  (IdBits),
      .StepBits(StepBits)
  ) i_token_source (
      .clk_i,
      .rst_ni,
      .start_valid_i(start_valid_i && start_ready_o),
      .start_ready_o(ts_start_ready),
      .n_prompt_i,
      .num_steps_i,
      .prompt_valid_i,
      .prompt_ready_o,
      .prompt_data_i,
      .argmax_valid_i,
      .argmax_ready_o,
      .argmax_data_i,
      .token_valid_o,
      .token_ready_i,
      .token_data_o,
      .gen_valid_o,
      .gen_ready_i,
      .gen_data_o,
      .done_o
  );

  st_layer_loop #(
      .Width    (Width),
      .VecTokens(VecTokens),
      .Layers   (Layers)
  ) i_layer_loop (
      .clk_i,
      .rst_ni,
      .first_valid_i,
      .first_ready_o,
      .first_data_i,
      .block_valid_o,
      .block_ready_i,
      .block_data_o,
      .loop_valid_i,
      .loop_ready_o,
      .loop_data_i,
      .last_valid_o,
      .last_ready_i,
      .last_data_o
  );

  /* verilator lint_off UNUSEDSIGNAL */
  logic cmd_sub, cmd_last;
  /* verilator lint_on UNUSEDSIGNAL */
  st_step_sequencer #(
      .Layers  (Layers),
      .Subs    (1),
      .StepBits(StepBits),
      .RomBits (RomBits),
      .RomFile (RomFile)
  ) i_block_commands (
      .clk_i,
      .rst_ni,
      .start_valid_i(start_valid_i && start_ready_o),
      .start_ready_o(seq_start_ready),
      .num_steps_i,
      .first_step_i ('0),
      .gate_count_i ('0),
      .valid_o      (cmd_valid_o),
      .ready_i      (cmd_ready_i),
      .step_o       (cmd_step_o),
      .layer_o      (cmd_layer_o),
      .sub_o        (cmd_sub),
      .word_o       (cmd_word_o),
      .last_o       (cmd_last),
      .done_o       (cmd_done_o)
  );

endmodule

`default_nettype wire
