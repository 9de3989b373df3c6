// st_rr_mux: N -> 1 round-robin merge of valid/ready streams.
//
// Strict=1 (default): deterministic interleave. Takes one token from input 0, then input 1, ...,
// input N-1, then input 0 again, waiting for the input whose turn it is even when others have
// tokens. Merges back exactly what st_rr_demux split.
//
// Strict=0: work-conserving round-robin arbiter. Each cycle grants the first input with a token
// at or after the priority pointer (one past the last input served), skipping idle inputs; an
// input with a token is served within N output tokens, so none starves. A grant that stalls on
// ready_i is locked until the token is taken, so valid_o/data_o/idx_o stay stable.
//
// In both modes idx_o names the input the current output token comes from. Sustains one token
// per cycle when the inputs have tokens and the consumer is ready.
//
// Combinational: data_o is a multiplexer of data_i, valid_o and ready_o depend on valid_i and
// ready_i (no register on the data path, zero latency). State: the turn / priority pointer, and
// for Strict=0 the lock. The payload is stable while the output stalls because the granted input
// must hold its token until its ready_o.
//
// Ports are flattened: input i is valid_i[i], ready_o[i], data_i[i*Width +: Width].
`default_nettype none

module st_rr_mux #(
    /// Number of input streams (>= 1).
    parameter int unsigned N = 2,
    /// Payload width in bits (>= 1).
    parameter int unsigned Width = 32,
    /// 1: fixed order 0, 1, ..., N-1, 0, ... (waits for the input in turn).
    /// 0: work-conserving round-robin arbiter that skips inputs without a token.
    parameter int unsigned Strict = 1,
    /// Width of idx_o (derived; do not override).
    parameter int unsigned IdxWidth = (N > 1) ? $clog2(N) : 1
) (
    input  wire                 clk_i,
    input  wire                 rst_ni,   // synchronous, active low
    // upstream
    input  wire  [N-1:0]        valid_i,
    output logic [N-1:0]        ready_o,
    input  wire  [N*Width-1:0]  data_i,
    // downstream
    output logic                valid_o,
    input  wire                 ready_i,
    output logic [Width-1:0]    data_o,
    output logic [IdxWidth-1:0] idx_o     // source input of the token on data_o
);

  if (N < 1) begin : gen_bad_n
    $fatal(1, "st_rr_mux: N must be >= 1");
  end
  if (Width < 1) begin : gen_bad_width
    $fatal(1, "st_rr_mux: Width must be >= 1");
  end
  if (Strict > 1) begin : gen_bad_strict
    $fatal(1, "st_rr_mux: Strict must be 0 or 1");
  end
  if (IdxWidth != ((N > 1) ? $clog2(N) : 1)) begin : gen_bad_idx_width
    $fatal(1, "st_rr_mux: IdxWidth is derived from N and must not be overridden");
  end

  // Strict: the input whose turn it is. Arbiter: the input with the highest priority.
  logic [IdxWidth-1:0] ptr_q;
  // The input granted this cycle.
  logic [IdxWidth-1:0] grant;
  logic [N-1:0] grant_onehot;

  for (genvar i = 0; i < N; i++) begin : gen_grant_onehot
    assign grant_onehot[i] = (grant == IdxWidth'(i));
  end

  assign valid_o = |(valid_i & grant_onehot);
  assign ready_o = {N{ready_i}} & grant_onehot;
  assign data_o  = data_i[grant*Width+:Width];
  assign idx_o   = grant;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      ptr_q <= '0;
    end else if (valid_o && ready_i) begin
      ptr_q <= (grant == IdxWidth'(N - 1)) ? '0 : grant + 1'b1;
    end
  end

  if (Strict != 0) begin : gen_strict
    assign grant = ptr_q;
  end else begin : gen_arbiter
    // A grant that stalled on ready_i, held until its token is taken.
    logic lock_q;
    logic [IdxWidth-1:0] lock_idx_q;
    // Inputs at or after the pointer, which win over those before it.
    logic [N-1:0] at_or_after_ptr;
    logic [N-1:0] candidates;
    logic [IdxWidth-1:0] arb_idx;

    assign at_or_after_ptr = {N{1'b1}} << ptr_q;

    assign candidates = ((valid_i & at_or_after_ptr) != '0) ? (valid_i & at_or_after_ptr)
                                                            : valid_i;
    // The lowest-numbered candidate.
    always_comb begin
      arb_idx = '0;
      for (int unsigned i = N; i > 0; i--) begin
        if (candidates[i-1]) arb_idx = IdxWidth'(i - 1);
      end
    end

    assign grant = lock_q ? lock_idx_q : arb_idx;

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        lock_q     <= 1'b0;
        lock_idx_q <= '0;
      end else begin
        lock_q     <= valid_o && !ready_i;
        lock_idx_q <= grant;
      end
    end

`ifndef SYNTHESIS
    // An input keeps its token until it is taken, so a locked grant stays valid.
    always_ff @(posedge clk_i) begin
      if (rst_ni && lock_q) assert (valid_o);
    end
`endif
  end

endmodule

`default_nettype wire
