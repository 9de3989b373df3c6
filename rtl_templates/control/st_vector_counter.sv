// st_vector_counter: which invocation of a kernel the tokens on one of its streams belong to.
// It counts the handshakes (beat_i) of the kernel's first input stream: VecTokens tokens make
// one vector, Subs vectors one layer, Layers layers one decode step. The outputs name the
// vector now streaming: step_o, layer_o, sub_o. The LLM top drives a shared kernel's sidebands
// (per-layer scales, the RoPE position, the attention cache length) as functions of them, so a
// kernel serving every layer sees the values of the layer its input belongs to, at the first
// token of the vector where it samples them (docs/accelerator.md §1). clear_i restarts at
// (first_step_i, 0, 0) for a new run: the run's first step, 0 for a fresh decode (a run that
// resumes over a KV cache already in HBM starts later).
`default_nettype none

module st_vector_counter #(
    /// Tokens per vector (>= 1).
    parameter int unsigned VecTokens = 16,
    /// Vectors per layer (>= 1).
    parameter int unsigned Subs = 1,
    /// Layers per step (>= 1).
    parameter int unsigned Layers = 1,
    /// Width of step_o (1 .. 32).
    parameter int unsigned StepBits = 16,
    /// Widths of layer_o and sub_o (derived; do not override).
    parameter int unsigned LayerBits = (Layers > 1) ? $clog2(Layers) : 1,
    parameter int unsigned SubBits = (Subs > 1) ? $clog2(Subs) : 1,
    parameter int unsigned TokenBits = (VecTokens > 1) ? $clog2(VecTokens) : 1
) (
    input  wire                  clk_i,
    input  wire                  rst_ni,   // synchronous, active low
    input  wire                  clear_i,       // restart at (first_step_i, 0, 0)
    input  wire  [ StepBits-1:0] first_step_i,  // the run's first step (sampled with clear_i)
    input  wire                  beat_i,        // one token of the counted stream moved
    output logic [ StepBits-1:0] step_o,
    output logic [LayerBits-1:0] layer_o,
    output logic [  SubBits-1:0] sub_o
);

  logic [TokenBits-1:0] token_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni || clear_i) begin
      token_q <= '0;
      sub_o   <= '0;
      layer_o <= '0;
      step_o  <= rst_ni ? first_step_i : '0;
    end else if (beat_i) begin
      if (token_q != TokenBits'(VecTokens - 1)) begin
        token_q <= token_q + 1'b1;
      end else begin
        token_q <= '0;
        if (sub_o != SubBits'(Subs - 1)) begin
          sub_o <= sub_o + 1'b1;
        end else begin
          sub_o <= '0;
          if (layer_o != LayerBits'(Layers - 1)) begin
            layer_o <= layer_o + 1'b1;
          end else begin
            layer_o <= '0;
            step_o  <= step_o + 1'b1;
          end
        end
      end
    end
  end

endmodule

`default_nettype wire
