// st_layer_loop: the 2-way mux and demux around the one reused decoder block of the LLM
// accelerator (docs/accelerator.md §1, docs/control.md). Per step, the block's input takes one
// vector (VecTokens tokens) from `first` (the prologue) and then Layers-1 vectors from the
// loop-back; of the block's output vectors, 0 .. Layers-2 go back into the loop and vector
// Layers-1 leaves on `last` (to the epilogue). Both sides select by counting tokens and vectors
// only: no command, no global state.
//
//   first ──► [mux] ──► block_* ══ block ══► loop_* ──► [demux] ──► last
//               ▲                                          │
//               └────────── loop FIFO (LoopDepth) ◄────────┘
//
// Deadlock freedom: the loop-back runs through an st_fifo of LoopDepth tokens. With
// LoopDepth >= VecTokens (the default) the block can always write a whole output vector into the
// loop without taking any input, so any block that, once it holds a whole input vector, emits the
// whole output vector without further input cannot deadlock the loop (a norm or GEMV that holds
// one vector and does not accept the next while it emits is the worst case, and is tested).
// A shallower loop is safe only for a block that keeps taking input while it emits and can hold
// more than VecTokens - LoopDepth tokens: the loop FIFO and the block form a ring that must have
// a free slot when a whole vector is inside it. The test shows both outcomes.
//
// Timing: mux and demux are combinational (zero latency, one token per cycle, like st_rr_mux /
// st_rr_demux with Strict=1); the loop FIFO adds its own latency (1 cycle for a LUTRAM or register
// FIFO and for a block-RAM FIFO that is drained as it fills). compiler/model/layer_loop_model.h
// gives the free-flow cycle count for an ideal pipelined or whole-vector block.
//
// Layers = 1: no loop. `first` goes straight to the block, the block's output straight to
// `last`; loop_* is still the block's output port, and no FIFO is built.
`default_nettype none

module st_layer_loop #(
    /// Payload width in bits (>= 1).
    parameter int unsigned Width = 32,
    /// Tokens per vector (>= 1).
    parameter int unsigned VecTokens = 16,
    /// Passes through the block per step (>= 1).
    parameter int unsigned Layers = 2,
    /// Loop-back FIFO capacity in tokens (>= 1; >= VecTokens for deadlock freedom, see above).
    parameter int unsigned LoopDepth = VecTokens,
    /// RamStyle of the loop-back st_fifo ("auto", "registers", "distributed", "block", "ultra").
    parameter LoopRamStyle = "auto"
) (
    input  wire              clk_i,
    input  wire              rst_ni,         // synchronous, active low
    // from the prologue: one vector per step
    input  wire              first_valid_i,
    output logic             first_ready_o,
    input  wire  [Width-1:0] first_data_i,
    // to the block's input
    output logic             block_valid_o,
    input  wire              block_ready_i,
    output logic [Width-1:0] block_data_o,
    // from the block's output
    input  wire              loop_valid_i,
    output logic             loop_ready_o,
    input  wire  [Width-1:0] loop_data_i,
    // to the epilogue: the last layer's vector of each step
    output logic             last_valid_o,
    input  wire              last_ready_i,
    output logic [Width-1:0] last_data_o
);

  if (Width < 1) begin : gen_bad_width
    $fatal(1, "st_layer_loop: Width must be >= 1");
  end
  if (VecTokens < 1 || Layers < 1) begin : gen_bad_shape
    $fatal(1, "st_layer_loop: VecTokens and Layers must be >= 1");
  end
  if (LoopDepth < 1) begin : gen_bad_depth
    $fatal(1, "st_layer_loop: LoopDepth must be >= 1");
  end

  if (Layers == 1) begin : gen_no_loop
    assign block_valid_o = first_valid_i;
    assign first_ready_o = block_ready_i;
    assign block_data_o  = first_data_i;
    assign last_valid_o  = loop_valid_i;
    assign loop_ready_o  = last_ready_i;
    assign last_data_o   = loop_data_i;
    /* verilator lint_off UNUSEDSIGNAL */
    logic unused_clock;
    assign unused_clock = clk_i ^ rst_ni;
    /* verilator lint_on UNUSEDSIGNAL */
  end else begin : gen_loop
    localparam int unsigned TokBits = (VecTokens > 1) ? $clog2(VecTokens) : 1;
    localparam int unsigned LayerBits = $clog2(Layers);
    localparam logic [TokBits-1:0] LastTok = TokBits'(VecTokens - 1);
    localparam logic [LayerBits-1:0] LastLayer = LayerBits'(Layers - 1);

    // Loop-back FIFO between the demux and the mux.
    logic             fifo_in_valid, fifo_in_ready, fifo_out_valid, fifo_out_ready;
    logic [Width-1:0] fifo_out_data;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [$clog2(LoopDepth+1)-1:0] fifo_count, fifo_max_count;
    /* verilator lint_on UNUSEDSIGNAL */

    st_fifo #(
        .Width   (Width),
        .Depth   (LoopDepth),
        .RamStyle(LoopRamStyle)
    ) i_loop_fifo (
        .clk_i,
        .rst_ni,
        .valid_i    (fifo_in_valid),
        .ready_o    (fifo_in_ready),
        .data_i     (loop_data_i),
        .valid_o    (fifo_out_valid),
        .ready_i    (fifo_out_ready),
        .data_o     (fifo_out_data),
        .count_o    (fifo_count),
        .max_count_o(fifo_max_count),
        .limit_i    ('0)
    );

    // ---- mux: layer 0 from `first`, layers 1 .. Layers-1 from the loop ----
    logic [TokBits-1:0] in_tok_q;
    logic [LayerBits-1:0] in_layer_q;
    logic in_first, block_fire;
    assign in_first       = (in_layer_q == '0);
    assign block_valid_o  = in_first ? first_valid_i : fifo_out_valid;
    assign block_data_o   = in_first ? first_data_i : fifo_out_data;
    assign first_ready_o  = in_first && block_ready_i;
    assign fifo_out_ready = !in_first && block_ready_i;
    assign block_fire     = block_valid_o && block_ready_i;

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        in_tok_q   <= '0;
        in_layer_q <= '0;
      end else if (block_fire) begin
        in_tok_q <= (in_tok_q == LastTok) ? '0 : in_tok_q + 1'b1;
        if (in_tok_q == LastTok) in_layer_q <= (in_layer_q == LastLayer) ? '0 : in_layer_q + 1'b1;
      end
    end

    // ---- demux: layers 0 .. Layers-2 into the loop, layer Layers-1 to `last` ----
    logic [TokBits-1:0] out_tok_q;
    logic [LayerBits-1:0] out_layer_q;
    logic out_last, loop_fire;
    assign out_last      = (out_layer_q == LastLayer);
    assign last_valid_o  = loop_valid_i && out_last;
    assign last_data_o   = loop_data_i;
    assign fifo_in_valid = loop_valid_i && !out_last;
    assign loop_ready_o  = out_last ? last_ready_i : fifo_in_ready;
    assign loop_fire     = loop_valid_i && loop_ready_o;

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        out_tok_q   <= '0;
        out_layer_q <= '0;
      end else if (loop_fire) begin
        out_tok_q <= (out_tok_q == LastTok) ? '0 : out_tok_q + 1'b1;
        if (out_tok_q == LastTok) out_layer_q <= out_last ? '0 : out_layer_q + 1'b1;
      end
    end
  end

endmodule

`default_nettype wire
