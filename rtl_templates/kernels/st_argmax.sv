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
// State is O(Lanes): the token and its lane-valid bits registered (stage 0), a lane-reduction
// tree (lower lane wins ties) with a register after every level but the root (so a path crosses
// one compare-and-select: docs/logic-depth.md), the root registered (stage 1), then a running
// best (value, index) that a later token replaces only when strictly larger. Vectors of any
// length up to MaxLen stream through at one token per cycle; back-to-back vectors need no gap
// once their length is at least two tokens. Timing (st::model::argmaxTiming): with the config
// handshake at cycle 0 and T = ceil(n / Lanes), data tokens in cycles 1..T and the result
// handshake at cycle T + 3 + TreeStages, TreeStages = max(0, ceil(log2(Lanes)) - 1) registered
// tree levels. The result leaves through a register slice (st_skid_buffer).
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
  // children 2k+1 and 2k+2; positions Leaves-1 .. 2*Leaves-2 are the leaves, lanes 0 ..
  // Leaves-1), so a left child always covers lower lanes than its sibling.
  localparam int unsigned LaneBits = (Lanes > 1) ? $clog2(Lanes) : 1;
  localparam int unsigned Leaves = 1 << $clog2(Lanes);

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

  // ---- stage 0: the token, its lane-valid bits and its place in the vector ------------------
  logic                      s0_valid_q, s0_first_q, s0_last_q;
  logic [IndexBits-1:0]      s0_base_q;
  logic [Lanes*ElemBits-1:0] s0_data_q;
  logic [Lanes-1:0]          s0_lane_valid_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) s0_valid_q <= 1'b0;
    else if (advance) s0_valid_q <= accept;
  end
  always_ff @(posedge clk_i) begin
    if (advance) begin
      s0_first_q <= first_token;
      s0_last_q  <= token_last;
      s0_base_q  <= token_base;
      s0_data_q  <= data_i;
      for (int i = 0; i < Lanes; i++) s0_lane_valid_q[i] <= LenBits'(i) < token_remaining;
    end
  end

  // ---- lane reduction tree ------------------------------------------------------------------
  // Internal nodes below the root are registered (node_q_*): one compare-and-select per cycle.
  // split_var: Verilator otherwise sees each array as one signal feeding itself (UNOPTFLAT).
  localparam int unsigned TreeStages = (Leaves > 2) ? $clog2(Leaves) - 1 : 0;
  localparam int unsigned InnerNodes = (Leaves > 1) ? Leaves - 1 : 1;
  logic [ElemBits-1:0] leaf_value[Leaves];
  // The root's valid (and, with one lane, the leaf's) is implied by an accepted token.
  /* verilator lint_off UNUSEDSIGNAL */
  logic                leaf_valid[Leaves];
  logic [ElemBits-1:0] node_value  [InnerNodes]  /* verilator split_var */;
  logic [LaneBits-1:0] node_lane   [InnerNodes]  /* verilator split_var */;
  logic                node_valid  [InnerNodes]  /* verilator split_var */;
  // With one or two lanes no node is registered.
  logic [ElemBits-1:0] node_q_value[InnerNodes]  /* verilator split_var */;
  logic [LaneBits-1:0] node_q_lane [InnerNodes]  /* verilator split_var */;
  logic                node_q_valid[InnerNodes]  /* verilator split_var */;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [ElemBits-1:0] root_value;
  logic [LaneBits-1:0] root_lane;

  for (genvar i = 0; i < Leaves; i++) begin : gen_leaf
    if (i < Lanes) begin : gen_lane
      assign leaf_value[i] = s0_data_q[i*ElemBits+:ElemBits];
      assign leaf_valid[i] = s0_lane_valid_q[i];
    end else begin : gen_pad
      assign leaf_value[i] = '0;
      assign leaf_valid[i] = 1'b0;
    end
  end

  if (Leaves == 1) begin : gen_single_lane
    assign root_value = leaf_value[0];
    assign root_lane  = '0;
  end else begin : gen_tree
    for (genvar k = 0; k < Leaves - 1; k++) begin : gen_node
      // Leaves is a power of two: both children are leaves or both internal nodes.
      logic [ElemBits-1:0] l_value, r_value;
      logic [LaneBits-1:0] l_lane, r_lane;
      logic                l_valid, r_valid;
      if (2 * k + 1 >= Leaves - 1) begin : gen_leaf_children
        assign l_value = leaf_value[2*k+1-(Leaves-1)];
        assign r_value = leaf_value[2*k+2-(Leaves-1)];
        assign l_lane  = LaneBits'(2 * k + 1 - (Leaves - 1));
        assign r_lane  = LaneBits'(2 * k + 2 - (Leaves - 1));
        assign l_valid = leaf_valid[2*k+1-(Leaves-1)];
        assign r_valid = leaf_valid[2*k+2-(Leaves-1)];
      end else begin : gen_node_children
        assign l_value = node_q_value[2*k+1];
        assign r_value = node_q_value[2*k+2];
        assign l_lane  = node_q_lane[2*k+1];
        assign r_lane  = node_q_lane[2*k+2];
        assign l_valid = node_q_valid[2*k+1];
        assign r_valid = node_q_valid[2*k+2];
      end
      // The right (higher-lane) child wins only when valid and strictly larger.
      wire right_wins = r_valid && (!l_valid || $signed(r_value) > $signed(l_value));
      assign node_value[k] = right_wins ? r_value : l_value;
      assign node_lane[k]  = right_wins ? r_lane : l_lane;
      assign node_valid[k] = l_valid || r_valid;
      if (k > 0) begin : gen_reg
        always_ff @(posedge clk_i) begin
          if (advance) begin
            node_q_value[k] <= node_value[k];
            node_q_lane[k]  <= node_lane[k];
            node_q_valid[k] <= node_valid[k];
          end
        end
      end else begin : gen_root
        assign node_q_value[0] = '0;
        assign node_q_lane[0]  = '0;
        assign node_q_valid[0] = 1'b0;
      end
    end
    assign root_value = node_value[0];
    assign root_lane  = node_lane[0];
  end

  // The token's flags and base follow it through the registered tree levels.
  logic                 tree_valid[TreeStages+1];
  logic                 tree_first[TreeStages+1];
  logic                 tree_last [TreeStages+1];
  logic [IndexBits-1:0] tree_base [TreeStages+1];
  assign tree_valid[0] = s0_valid_q;
  assign tree_first[0] = s0_first_q;
  assign tree_last[0]  = s0_last_q;
  assign tree_base[0]  = s0_base_q;
  for (genvar t = 0; t < TreeStages; t++) begin : gen_tree_stage
    always_ff @(posedge clk_i) begin
      if (!rst_ni) tree_valid[t+1] <= 1'b0;
      else if (advance) tree_valid[t+1] <= tree_valid[t];
    end
    always_ff @(posedge clk_i) begin
      if (advance) begin
        tree_first[t+1] <= tree_first[t];
        tree_last[t+1]  <= tree_last[t];
        tree_base[t+1]  <= tree_base[t];
      end
    end
  end

  // ---- stage 1: the token's best lane -------------------------------------------------------
  logic                 s1_valid_q, s1_first_q, s1_last_q;
  logic [ ElemBits-1:0] s1_value_q;
  logic [ LaneBits-1:0] s1_lane_q;
  logic [IndexBits-1:0] s1_base_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) s1_valid_q <= 1'b0;
    else if (advance) s1_valid_q <= tree_valid[TreeStages];
  end
  always_ff @(posedge clk_i) begin
    if (advance) begin
      s1_first_q <= tree_first[TreeStages];
      s1_last_q  <= tree_last[TreeStages];
      s1_value_q <= root_value;
      s1_lane_q  <= root_lane;
      s1_base_q  <= tree_base[TreeStages];
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
    if (rst_ni && accept) assert (token_remaining != '0);
  end
`endif

endmodule

`default_nettype wire
