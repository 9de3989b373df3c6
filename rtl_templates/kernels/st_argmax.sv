// st_argmax: index of the largest element of a streamed vector (docs/numerics.md §6, golden
// st::numerics::argmax); ties go to the lowest index.
//
// Streams:
//   cfg (cfg_valid_i/cfg_ready_o/cfg_data_i): one token per vector, the vector length n
//     (1 <= n <= MaxLen). The kernel holds one config token in a register, so the next
//     vector's length can arrive while the current vector streams in.
//   in  (valid_i/ready_o/data_i): ceil(n / Lanes) tokens of Lanes signed ElemBits-bit elements,
//     element i of a token at bits [i*ElemBits +: ElemBits], vector element 0 in token 0. n need
//     not be a multiple of Lanes: the lanes beyond n in the last token are ignored.
//   out (valid_o/ready_i/data_o): one token per vector, the index (IndexBits bits).
//
// State is O(Lanes): a lane-reduction tree (lower lane wins ties) registered once, then a
// running best (value, index) that a later token replaces only when strictly larger. Vectors of
// any length up to MaxLen stream through at one token per cycle; back-to-back vectors need no
// gap once their length is at least two tokens. Timing (st::model::argmaxTiming): with the
// config handshake at cycle 0 and T = ceil(n / Lanes), data tokens in cycles 1..T and the result
// handshake at cycle T + 2. The result leaves through a register slice (st_skid_buffer).
`default_nettype none

module st_argmax #(
    /// Elements per input token (>= 1).
    parameter int unsigned Lanes = 4,
    /// Width of one signed element (2 .. 32); the LM-head logits are s16.
    parameter int unsigned ElemBits = 16,
    /// Longest vector (>= Lanes), e.g. the vocabulary size.
    parameter int unsigned MaxLen = 1024,
    /// Width of the length on the config stream (derived; do not override).
    parameter int unsigned LenBits = $clog2(MaxLen + 1),
    /// Width of the output index (derived; do not override).
    parameter int unsigned IndexBits = (MaxLen > 1) ? $clog2(MaxLen) : 1
) (
    input  wire                        clk_i,
    input  wire                        rst_ni,       // synchronous, active low
    // config: vector length n
    input  wire                        cfg_valid_i,
    output logic                       cfg_ready_o,
    input  wire  [        LenBits-1:0] cfg_data_i,
    // vector elements
    input  wire                        valid_i,
    output logic                       ready_o,
    input  wire  [Lanes*ElemBits-1:0]  data_i,
    // index of the maximum
    output logic                       valid_o,
    input  wire                        ready_i,
    output logic [      IndexBits-1:0] data_o
);

  if (Lanes < 1) begin : gen_bad_lanes
    $fatal(1, "st_argmax: Lanes must be >= 1");
  end
  if (ElemBits < 2 || ElemBits > 32) begin : gen_bad_elem_bits
    $fatal(1, "st_argmax: ElemBits must be 2 .. 32");
  end
  if (MaxLen < Lanes) begin : gen_bad_max_len
    $fatal(1, "st_argmax: MaxLen must be >= Lanes");
  end
  if (LenBits != $clog2(MaxLen + 1) || IndexBits != ((MaxLen > 1) ? $clog2(MaxLen) : 1))
  begin : gen_bad_derived
    $fatal(1, "st_argmax: LenBits and IndexBits are derived from MaxLen; do not override them");
  end

  // Lane tree: Leaves = Lanes rounded up to a power of two, nodes in heap order (node k has
  // children 2k+1 and 2k+2; leaves Leaves-1 .. 2*Leaves-2 hold lanes 0 .. Leaves-1), so a left
  // child always covers lower lanes than its sibling.
  localparam int unsigned LaneBits = (Lanes > 1) ? $clog2(Lanes) : 1;
  localparam int unsigned Leaves = 1 << $clog2(Lanes);
  localparam int unsigned Nodes = 2 * Leaves - 1;

  // ---- config register ----------------------------------------------------------------------
  logic               cfg_full_q;
  logic [LenBits-1:0] cfg_len_q;

  // ---- input side ---------------------------------------------------------------------------
  logic                 in_vector_q;  // a vector's first token has been accepted
  logic [  LenBits-1:0] remaining_q;  // elements not yet accepted
  logic [IndexBits-1:0] base_q;       // index of lane 0 of the next token
  logic                 advance;      // the pipeline moves this cycle

  wire                 first_token = !in_vector_q;
  wire [  LenBits-1:0] token_remaining = first_token ? cfg_len_q : remaining_q;
  wire [IndexBits-1:0] token_base = first_token ? '0 : base_q;
  wire                 token_last = token_remaining <= LenBits'(Lanes);

  assign ready_o     = advance && (in_vector_q || cfg_full_q);
  assign cfg_ready_o = !cfg_full_q;
  wire accept = valid_i && ready_o;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      cfg_full_q  <= 1'b0;
      in_vector_q <= 1'b0;
    end else begin
      if (cfg_valid_i && cfg_ready_o) cfg_full_q <= 1'b1;
      else if (accept && first_token) cfg_full_q <= 1'b0;
      if (accept) in_vector_q <= !token_last;
    end
  end

  always_ff @(posedge clk_i) begin
    if (cfg_valid_i && cfg_ready_o) cfg_len_q <= cfg_data_i;
    if (accept) begin
      remaining_q <= token_remaining - LenBits'(Lanes);
      base_q      <= token_base + IndexBits'(Lanes);
    end
  end

  // ---- lane reduction tree (combinational) --------------------------------------------------
  // split_var: Verilator otherwise sees each array as one signal feeding itself (UNOPTFLAT).
  logic [ElemBits-1:0] node_value[Nodes]  /* verilator split_var */;
  logic [LaneBits-1:0] node_lane [Nodes]  /* verilator split_var */;
  logic                node_valid[Nodes]  /* verilator split_var */;

  for (genvar i = 0; i < Leaves; i++) begin : gen_leaf
    if (i < Lanes) begin : gen_lane
      assign node_value[Leaves-1+i] = data_i[i*ElemBits+:ElemBits];
      assign node_lane[Leaves-1+i]  = LaneBits'(i);
      assign node_valid[Leaves-1+i] = LenBits'(i) < token_remaining;
    end else begin : gen_pad
      assign node_value[Leaves-1+i] = '0;
      assign node_lane[Leaves-1+i]  = '0;
      assign node_valid[Leaves-1+i] = 1'b0;
    end
  end

  for (genvar k = 0; k < Leaves - 1; k++) begin : gen_node
    // The right (higher-lane) child wins only when valid and strictly larger.
    wire right_wins = node_valid[2*k+2] &&
        (!node_valid[2*k+1] || $signed(node_value[2*k+2]) > $signed(node_value[2*k+1]));
    assign node_value[k] = right_wins ? node_value[2*k+2] : node_value[2*k+1];
    assign node_lane[k]  = right_wins ? node_lane[2*k+2] : node_lane[2*k+1];
    assign node_valid[k] = node_valid[2*k+1] || node_valid[2*k+2];
  end

  // ---- stage 1: the token's best lane -------------------------------------------------------
  logic                 s1_valid_q, s1_first_q, s1_last_q;
  logic [ ElemBits-1:0] s1_value_q;
  logic [ LaneBits-1:0] s1_lane_q;
  logic [IndexBits-1:0] s1_base_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) s1_valid_q <= 1'b0;
    else if (advance) s1_valid_q <= accept;
  end
  always_ff @(posedge clk_i) begin
    if (advance) begin
      s1_first_q <= first_token;
      s1_last_q  <= token_last;
      s1_value_q <= node_value[0];
      s1_lane_q  <= node_lane[0];
      s1_base_q  <= token_base;
    end
  end

  // ---- stage 2: running best; the result on the last token ----------------------------------
  logic [ ElemBits-1:0] best_value_q;
  logic [IndexBits-1:0] best_index_q;
  wire  [IndexBits-1:0] candidate_index = s1_base_q + IndexBits'(s1_lane_q);
  wire                  candidate_wins = s1_first_q || $signed(s1_value_q) > $signed(best_value_q);
  wire  [IndexBits-1:0] merged_index = candidate_wins ? candidate_index : best_index_q;
  wire                  result_valid = s1_valid_q && s1_last_q;
  logic                 result_ready;

  // Everything stalls only while a result waits for the output register slice.
  assign advance = result_ready || !result_valid;

  always_ff @(posedge clk_i) begin
    if (advance && s1_valid_q && candidate_wins) begin
      best_value_q <= s1_value_q;
      best_index_q <= candidate_index;
    end
  end

  st_skid_buffer #(
      .Width(IndexBits)
  ) u_out_slice (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .valid_i(result_valid),
      .ready_o(result_ready),
      .data_i (merged_index),
      .valid_o(valid_o),
      .ready_i(ready_i),
      .data_o (data_o)
  );

`ifndef SYNTHESIS
  // A vector's length is 1 .. MaxLen.
  always_ff @(posedge clk_i) begin
    if (rst_ni && cfg_valid_i && cfg_ready_o)
      assert (cfg_data_i >= 1 && cfg_data_i <= LenBits'(MaxLen))
      else $error("st_argmax: config length %0d outside 1 .. %0d", cfg_data_i, MaxLen);
  end
  // Every accepted token holds at least one element of the vector.
  always_ff @(posedge clk_i) begin
    if (rst_ni && accept) assert (node_valid[0]);
  end
`endif

endmodule

`default_nettype wire
