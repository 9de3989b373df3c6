// st_step_sequencer: the command counter of one command port of the LLM accelerator
// (docs/accelerator.md §1, docs/control.md). After a start handshake carrying the runtime number
// of steps T and the run's first step S (0, or the position a run resumes at over a KV cache
// already in HBM: `sim --kv-prefill`), it emits one command token per (step t, layer l,
// sub-invocation s) in program order
//   for t = max(FirstStep, S) .. T-1, for l = 0 .. Layers-1, for s = 0 .. Subs-1,
// each carrying t, l, s and the per-layer constant word rom[l*Subs + s]. The port's command
// contents (DMA base address and trip counts, kernel sidebands) are combinational functions of
// (step_o, layer_o, sub_o, word_o) that the emitter generates beside the instance, e.g.
// base_addr = word_o[..] + layer_o * LayerStride + f(step_o); the sequencer itself stays generic.
//
// Gate (Gated=1): command (t, l, s) is not issued before
// gate_count_i >= (t-S)*Layers + l + GateOffset (signed; a negative threshold always passes).
// gate_count_i is a non-decreasing counter of another port's completions in this run, e.g. the
// KV append write DMA's done pulses: with GateOffset = 1 - Layers the K/V cache read of step t,
// layer l waits for the append of (t-1, l) (docs/accelerator.md §1); at t = S that row is already
// in HBM and the threshold is not positive. The threshold advances by one per (t, l) with no
// multiplier.
//
// Timing (compiler/model/step_sequencer_model.h is the cycle-exact model the test compares
// against every cycle): the start handshake latches the counters, the next cycle loads the first
// command, so it is valid two cycles after the start handshake, then
// one command per cycle while ready_i is high and the gate passes; the gate is checked when a
// command is loaded into the output register, so a command becomes valid one cycle after its
// threshold is reached. done_o pulses in the cycle after the last command's handshake (the cycle
// after the start handshake if there is no command: T <= max(FirstStep, S)); start_ready_o is
// high then.
//
// The output is a register (valid_o, step_o, layer_o, sub_o, word_o, last_o): no combinational
// path from ready_i or gate_count_i to valid_o or the payload. The ROM is an asynchronous-read
// array of Layers*Subs words (LUT ROM), loaded by $readmemh from RomFile, or from the parameter
// RomInit (word i in RomInit[i*RomBits +: RomBits]) when RomFile is "".
`default_nettype none

module st_step_sequencer #(
    /// Layers per step (>= 1).
    parameter int unsigned Layers = 1,
    /// Commands per (step, layer) (>= 1).
    parameter int unsigned Subs = 1,
    /// Width of num_steps_i and step_o (1 .. 32).
    parameter int unsigned StepBits = 16,
    /// First step that gets commands: 0, or 1 for a port with nothing to do at t = 0 (the K/V
    /// cache read).
    parameter int unsigned FirstStep = 0,
    /// Width of a ROM word (>= 1).
    parameter int unsigned RomBits = 32,
    /// $readmemh file of Layers*Subs words of RomBits (word l*Subs + s for layer l, sub s).
    parameter RomFile = "",
    /// The ROM when RomFile is "": word i in RomInit[i*RomBits +: RomBits].
    parameter logic [Layers*Subs*RomBits-1:0] RomInit = '0,
    /// 1: wait for gate_count_i (see above); 0: gate_count_i is ignored.
    parameter int unsigned Gated = 0,
    /// Signed offset of the gate threshold t*Layers + l + GateOffset (|GateOffset| < 2^GateBits).
    parameter int GateOffset = 0,
    /// Width of gate_count_i (1 .. 40); must hold every threshold T*Layers + GateOffset.
    parameter int unsigned GateBits = 32,
    /// Width of layer_o (derived; do not override).
    parameter int unsigned LayerBits = (Layers > 1) ? $clog2(Layers) : 1,
    /// Width of sub_o (derived; do not override).
    parameter int unsigned SubBits = (Subs > 1) ? $clog2(Subs) : 1
) (
    input  wire                  clk_i,
    input  wire                  rst_ni,         // synchronous, active low
    // start: latches the number of steps; accepted only while idle
    input  wire                  start_valid_i,
    output logic                 start_ready_o,
    input  wire  [ StepBits-1:0] num_steps_i,    // T: steps t = max(FirstStep, S) .. T-1
    input  wire  [ StepBits-1:0] first_step_i,   // S: the run's first step (latched with T)
    // gate: a non-decreasing count of another port's completions (Gated=1 only)
    input  wire  [ GateBits-1:0] gate_count_i,
    // command stream
    output logic                 valid_o,
    input  wire                  ready_i,
    output logic [ StepBits-1:0] step_o,
    output logic [LayerBits-1:0] layer_o,
    output logic [  SubBits-1:0] sub_o,
    output logic [  RomBits-1:0] word_o,         // rom[layer_o*Subs + sub_o]
    output logic                 last_o,         // the run's last command
    output logic                 done_o          // one-cycle pulse: every command taken
);

  if (Layers < 1 || Subs < 1) begin : gen_bad_shape
    $fatal(1, "st_step_sequencer: Layers and Subs must be >= 1");
  end
  if (StepBits < 1 || StepBits > 32) begin : gen_bad_step_bits
    $fatal(1, "st_step_sequencer: StepBits must be 1 .. 32");
  end
  if (FirstStep > 1) begin : gen_bad_first_step
    $fatal(1, "st_step_sequencer: FirstStep must be 0 or 1");
  end
  if (RomBits < 1) begin : gen_bad_rom_bits
    $fatal(1, "st_step_sequencer: RomBits must be >= 1");
  end
  if (Gated > 1) begin : gen_bad_gated
    $fatal(1, "st_step_sequencer: Gated must be 0 or 1");
  end
  if (GateBits < 1 || GateBits > 40) begin : gen_bad_gate_bits
    $fatal(1, "st_step_sequencer: GateBits must be 1 .. 40");
  end
  if (LayerBits != ((Layers > 1) ? $clog2(Layers) : 1)) begin : gen_bad_layer_bits
    $fatal(1, "st_step_sequencer: LayerBits is derived from Layers and must not be overridden");
  end
  if (SubBits != ((Subs > 1) ? $clog2(Subs) : 1)) begin : gen_bad_sub_bits
    $fatal(1, "st_step_sequencer: SubBits is derived from Subs and must not be overridden");
  end

  localparam int unsigned Words = Layers * Subs;
  localparam int unsigned IdxBits = (Words > 1) ? $clog2(Words) : 1;
  // Signed threshold: every value from GateOffset (> -2^GateBits) up to T*Layers + GateOffset
  // (< 2^GateBits by the contract of GateBits) fits in GateBits + 1 signed bits.
  localparam int unsigned ThreshBits = GateBits + 1;

  // ---- ROM ----
  logic [RomBits-1:0] rom[Words];
  // Guarded so that a tool elaborating with the default "" does not try to open "".
  if (RomFile != "") begin : gen_rom_file
    initial begin
      $readmemh(RomFile, rom);
    end
  end else begin : gen_rom_param
    for (genvar i = 0; i < Words; i++) begin : gen_word
      assign rom[i] = RomInit[i*RomBits+:RomBits];
    end
  end

  // ---- the next command (t, l, s), not yet in the output register ----
  logic                  pending_q;     // a next command exists
  logic [  StepBits-1:0] t_q;
  logic [ LayerBits-1:0] l_q;
  logic [   SubBits-1:0] s_q;
  logic [   IdxBits-1:0] idx_q;         // l_q*Subs + s_q
  logic [  StepBits-1:0] last_step_q;   // num_steps - 1, the run's last step (docs/logic-depth.md)
  logic signed [ThreshBits-1:0] thresh_q;  // (t_q-S)*Layers + l_q + GateOffset

  logic last_sub, last_layer, last_step, next_is_last;
  assign last_sub = (s_q == SubBits'(Subs - 1));
  assign last_layer = (l_q == LayerBits'(Layers - 1));
  assign last_step = (t_q == last_step_q);
  assign next_is_last = last_sub && last_layer && last_step;

  logic gate_ok;
  if (Gated != 0) begin : gen_gate
    assign gate_ok = (thresh_q <= $signed({1'b0, gate_count_i}));
  end else begin : gen_no_gate
    assign gate_ok = 1'b1;
    /* verilator lint_off UNUSEDSIGNAL */
    logic unused_gate;
    assign unused_gate = ^gate_count_i;
    /* verilator lint_on UNUSEDSIGNAL */
  end

  // The run's first command step, and its gate threshold's step term (begin - S)*Layers.
  logic [StepBits-1:0] begin_step;
  logic signed [ThreshBits-1:0] begin_thresh;
  if (FirstStep != 0) begin : gen_first_step_one
    // S = 0: the run starts at step 1, one layer-step into the gate count.
    assign begin_step   = (first_step_i == '0) ? StepBits'(1) : first_step_i;
    assign begin_thresh = (first_step_i == '0) ? ThreshBits'(Layers) : '0;
  end else begin : gen_first_step_zero
    assign begin_step   = first_step_i;
    assign begin_thresh = '0;
  end

  logic load, fire, start;
  assign fire = valid_o && ready_i;
  assign load = pending_q && (!valid_o || ready_i) && gate_ok;
  assign start_ready_o = !pending_q && !valid_o;
  assign start = start_valid_i && start_ready_o;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      pending_q <= 1'b0;
      valid_o   <= 1'b0;
      done_o    <= 1'b0;
    end else begin
      done_o <= fire && last_o;
      if (start) begin
        pending_q <= (num_steps_i > begin_step);
        done_o    <= (num_steps_i <= begin_step);
      end else if (load) begin
        pending_q <= !next_is_last;
      end
      if (load) valid_o <= 1'b1;
      else if (fire) valid_o <= 1'b0;
    end
  end

  // Counters and payload: no reset needed (qualified by pending_q / valid_o).
  always_ff @(posedge clk_i) begin
    if (start) begin
      last_step_q <= num_steps_i - 1'b1;
      t_q         <= begin_step;
      l_q         <= '0;
      s_q         <= '0;
      idx_q       <= '0;
      thresh_q    <= begin_thresh + ThreshBits'(GateOffset);
    end else if (load) begin
      s_q   <= last_sub ? '0 : s_q + 1'b1;
      idx_q <= (last_sub && last_layer) ? '0 : idx_q + 1'b1;
      if (last_sub) begin
        l_q      <= last_layer ? '0 : l_q + 1'b1;
        t_q      <= last_layer ? t_q + 1'b1 : t_q;
        thresh_q <= thresh_q + 1;
      end
    end
    if (load) begin
      step_o  <= t_q;
      layer_o <= l_q;
      sub_o   <= s_q;
      word_o  <= rom[idx_q];
      last_o  <= next_is_last;
    end
  end

`ifndef SYNTHESIS
  // The index register tracks l*Subs + s.
  always_ff @(posedge clk_i) begin
    if (rst_ni && pending_q) assert (32'(idx_q) == 32'(l_q) * Subs + 32'(s_q));
  end
`endif

endmodule

`default_nettype wire
