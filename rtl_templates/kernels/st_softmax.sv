// st_softmax: softmax over a streamed vector of runtime length n (1 <= n <= MaxLen), bit-exact
// with st::numerics::softmax (docs/numerics.md §6):
//   pass 1  m = max z                          (while the vector streams in and is buffered)
//   pass 2  e_i = exp2Negative(-round((m - z_i) * M), 32) (Q1.32), S = sum e_i
//           (R, L) = reciprocalRefined(S)
//   pass 3  p_i = round(e_i * R / 2^(L + 15))   (u16 Q1.15, 1.0 = 32768)
// Passes 2 and 3 read the buffered logits back and recompute e_i in the same exponent pipeline
// (the spec allows recomputing or buffering; recomputing keeps the buffer InBits wide).
//
// Normalized = 0 (decode attention, st::numerics::attentionWeights): no pass 2. Right after
// pass 1 the last pass emits the unnormalized weights E_i = floor((e_i + 2^16) / 2^17) (u16
// Q1.15, 32768 at the maximum) and sums them; 1/(S_E * 2^17) = (R, L) from the same reciprocal
// follows on norm_valid_o, and the consumer divides by the sum after weighing with E.
//
// Streams:
//   cfg (cfg_valid_i/cfg_ready_o/cfg_data_i): one token per vector, {shift[5:0], mantissa[23:0],
//     n[LenBits-1:0]}: the vector length and the FixedScale M = mantissa * 2^-shift
//     (logitToLog2 = s_logit * log2(e) * 2^16 of softmaxScales). M is a runtime input because it
//     folds in the per-layer score scale, and one softmax instance serves every layer. The
//     kernel holds one config token, so the next vector's config can arrive early.
//   in  (valid_i/ready_o/data_i): ceil(n / Lanes) tokens of Lanes signed InBits-bit logits,
//     element i of a token at bits [i*InBits +: InBits], element 0 of the vector in token 0. n
//     need not be a multiple of Lanes; the lanes beyond n in the last token are ignored.
//   out (valid_o/ready_i/data_o): ceil(n / Lanes) tokens of Lanes u16 probabilities (weights
//     when Normalized = 0) in the same layout; the lanes beyond n in the last token are 0.
//     Leaves through an st_skid_buffer.
//   norm (Normalized = 0 only): norm_valid_o pulses one cycle with (R, L) of the vector's weight
//     sum on norm_mantissa_o (Q1.30) / norm_exponent_o, which hold until the next vector's.
//
// Schedule of one vector (T = ceil(n / Lanes); st::model::softmaxTiming, cycle 0 = the config
// handshake, no backpressure): data tokens in cycles 1..T, written to the buffer (depth
// ceil(MaxLen / Lanes), Lanes*InBits wide) while a lane tree and a running maximum find m;
// pass-2 reads in cycles T+2 .. 2T+1 through the exponent pipeline (st_softmax_exp_lane, 7
// stages with the buffer read), a lane sum and the accumulator (S final in cycle 2T+10); six
// cycles of st_softmax_reciprocal; pass-3 reads from cycle 2T+17, two more stages (e * R, round
// and shift) and the output slice: outputs in cycles 2T+27 .. 3T+26, one per cycle. The next
// vector streams in once the last pass-3 read has been issued. Output backpressure stalls the
// whole read pipeline (passes 2 and 3); pass 1 never waits for it. Normalized = 0: the weight
// reads take cycles T+2 .. 2T+1, outputs in T+12 .. 2T+11, norm_valid_o in 2T+16.
`default_nettype none

module st_softmax #(
    /// Logits per token (>= 1).
    parameter int unsigned Lanes = 4,
    /// Width of one signed logit (2 .. 32); attention scores are s32.
    parameter int unsigned InBits = 32,
    /// Longest vector (>= Lanes, <= 2^20 = kMaxSoftmaxLength): the max context.
    parameter int unsigned MaxLen = 4096,
    /// $readmemh file of the exp2_neg_frac table (129 entries u21).
    parameter ExpTableFile = "",
    /// $readmemh file of the reciprocal table (257 entries u18).
    parameter ReciprocalTableFile = "",
    /// 1: probabilities (three passes); 0: unnormalized weights and their sum's reciprocal.
    parameter bit Normalized = 1'b1,
    /// Width of n on the config stream (derived; do not override).
    parameter int unsigned LenBits = $clog2(MaxLen + 1),
    /// Config token width: {shift[5:0], mantissa[23:0], n[LenBits-1:0]} (derived).
    parameter int unsigned CfgBits = LenBits + 30
) (
    input  wire                      clk_i,
    input  wire                      rst_ni,       // synchronous, active low
    // config: {shift, mantissa, n}
    input  wire                      cfg_valid_i,
    output logic                     cfg_ready_o,
    input  wire  [      CfgBits-1:0] cfg_data_i,
    // logits
    input  wire                      valid_i,
    output logic                     ready_o,
    input  wire  [Lanes*InBits-1:0]  data_i,
    // probabilities, u16 Q1.15
    output logic                     valid_o,
    input  wire                      ready_i,
    output logic [    Lanes*16-1:0]  data_o,
    // 1 / (weight sum * 2^17) = norm_mantissa_o * 2^-(30 + norm_exponent_o) (Normalized = 0)
    output logic                     norm_valid_o,
    output logic [             31:0] norm_mantissa_o,
    output logic [              5:0] norm_exponent_o
);

  if (Lanes < 1) begin : gen_bad_lanes
    $fatal(1, "st_softmax: Lanes must be >= 1");
  end
  if (InBits < 2 || InBits > 32) begin : gen_bad_in_bits
    $fatal(1, "st_softmax: InBits must be 2 .. 32");
  end
  if (MaxLen < Lanes || MaxLen > (1 << 20)) begin : gen_bad_max_len
    $fatal(1, "st_softmax: MaxLen must be Lanes .. 2^20");
  end
  if (LenBits != $clog2(MaxLen + 1) || CfgBits != LenBits + 30) begin : gen_bad_derived
    $fatal(1, "st_softmax: LenBits and CfgBits are derived; do not override them");
  end

  localparam int unsigned Depth = (MaxLen + Lanes - 1) / Lanes;
  localparam int unsigned AddrBits = (Depth > 1) ? $clog2(Depth) : 1;
  localparam int unsigned SumBits = 33 + $clog2(MaxLen);  // S <= n * 2^32
  localparam int unsigned LaneSumBits = 33 + $clog2(Lanes);
  localparam int unsigned Leaves = 1 << $clog2(Lanes);
  localparam int unsigned Nodes = 2 * Leaves - 1;
  localparam int unsigned Stages = 9;  // A (buffer read) .. G (e), H, I

  // ---- config register ----------------------------------------------------------------------
  logic               cfg_full_q;
  logic [CfgBits-1:0] cfg_q;

  // ---- pass 1: input, buffer write, running maximum -----------------------------------------
  typedef enum logic [1:0] {
    Load,       // accepting the vector (pass 1)
    Sum,        // issuing pass-2 reads
    Reciprocal, // waiting for S and 1/S
    Normalize   // issuing pass-3 reads
  } state_e;
  state_e state_q;

  logic                 in_vector_q;
  logic [  LenBits-1:0] in_remaining_q;
  logic [ AddrBits-1:0] write_addr_q;
  logic [  LenBits-1:0] vector_len_q;
  logic [         23:0] vector_mantissa_q;
  logic [          5:0] vector_shift_q;

  wire               first_token = !in_vector_q;
  wire [LenBits-1:0] token_remaining = first_token ? cfg_q[LenBits-1:0] : in_remaining_q;
  wire               token_last = token_remaining <= LenBits'(Lanes);
  wire [AddrBits-1:0] token_addr = first_token ? '0 : write_addr_q;

  assign cfg_ready_o = !cfg_full_q;
  assign ready_o     = (state_q == Load) && (in_vector_q || cfg_full_q);
  wire accept = valid_i && ready_o;

  (* ram_style = "block" *) logic [Lanes*InBits-1:0] buffer_q[Depth];
  always_ff @(posedge clk_i) begin
    if (accept) buffer_q[token_addr] <= data_i;
  end

  // Lane tree of maxima (heap order; lanes beyond n are invalid).
  // split_var: Verilator otherwise sees each array as one signal feeding itself (UNOPTFLAT).
  logic [InBits-1:0] node_value[Nodes]  /* verilator split_var */;
  logic              node_valid[Nodes]  /* verilator split_var */;
  for (genvar i = 0; i < Leaves; i++) begin : gen_leaf
    if (i < Lanes) begin : gen_lane
      assign node_value[Leaves-1+i] = data_i[i*InBits+:InBits];
      assign node_valid[Leaves-1+i] = LenBits'(i) < token_remaining;
    end else begin : gen_pad
      assign node_value[Leaves-1+i] = '0;
      assign node_valid[Leaves-1+i] = 1'b0;
    end
  end
  for (genvar k = 0; k < Leaves - 1; k++) begin : gen_node
    wire right_wins = node_valid[2*k+2] &&
        (!node_valid[2*k+1] || $signed(node_value[2*k+2]) > $signed(node_value[2*k+1]));
    assign node_value[k] = right_wins ? node_value[2*k+2] : node_value[2*k+1];
    assign node_valid[k] = node_valid[2*k+1] || node_valid[2*k+2];
  end

  logic              token_valid_q, token_first_q;
  logic [InBits-1:0] token_max_q, max_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      cfg_full_q    <= 1'b0;
      in_vector_q   <= 1'b0;
      token_valid_q <= 1'b0;
    end else begin
      if (cfg_valid_i && cfg_ready_o) cfg_full_q <= 1'b1;
      else if (accept && first_token) cfg_full_q <= 1'b0;
      if (accept) in_vector_q <= !token_last;
      token_valid_q <= accept;
    end
  end

  always_ff @(posedge clk_i) begin
    if (cfg_valid_i && cfg_ready_o) cfg_q <= cfg_data_i;
    if (accept) begin
      in_remaining_q <= token_remaining - LenBits'(Lanes);
      write_addr_q   <= token_addr + 1'b1;
      token_first_q  <= first_token;
      token_max_q    <= node_value[0];
      if (first_token) begin
        vector_len_q      <= cfg_q[LenBits-1:0];
        vector_mantissa_q <= cfg_q[LenBits+:24];
        vector_shift_q    <= cfg_q[LenBits+24+:6];
      end
    end
    if (token_valid_q && (token_first_q || $signed(token_max_q) > $signed(max_q)))
      max_q <= token_max_q;
  end

  // ---- passes 2 and 3: read issue -----------------------------------------------------------
  logic                 advance;  // the read pipeline moves this cycle
  logic [ AddrBits-1:0] read_addr_q;
  logic [  LenBits-1:0] read_remaining_q;
  logic                 reciprocal_done;

  wire               read_first = read_addr_q == '0;
  wire [LenBits-1:0] read_remaining = read_first ? vector_len_q : read_remaining_q;
  wire               read_last = read_remaining <= LenBits'(Lanes);
  // Pass 2 waits for the last token's maximum to be merged.
  // (In Normalize only Normalized = 0 can see token_valid_q: it comes straight from Load.)
  wire issue = advance && !token_valid_q && (state_q == Sum || state_q == Normalize);
  logic [Lanes-1:0] issue_keep;
  for (genvar i = 0; i < Lanes; i++) begin : gen_keep
    assign issue_keep[i] = LenBits'(i) < read_remaining;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q     <= Load;
      read_addr_q <= '0;
    end else begin
      case (state_q)
        Load: if (accept && token_last) state_q <= Normalized ? Sum : Normalize;
        Sum: if (issue && read_last) state_q <= Reciprocal;
        Reciprocal: if (reciprocal_done) state_q <= Normalize;
        default: if (issue && read_last) state_q <= Load;
      endcase
      if (issue) read_addr_q <= read_last ? '0 : read_addr_q + 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (issue) read_remaining_q <= read_remaining - LenBits'(Lanes);
  end

  // ---- the read pipeline: control travels with the token ------------------------------------
  // Stage s (1 = A .. 9 = I) of each control shift register is bit/field s-1.
  logic [Stages-1:0]       valid_q, normalize_q, first_q, last_q;
  logic [Stages*Lanes-1:0] keep_q;
  logic [InBits-1:0]       max_a_q;
  logic [23:0]             mantissa_a_q, mantissa_b_q;
  logic [5:0]              shift_a_q, shift_b_q, shift_c_q;
  logic [Lanes*InBits-1:0] logits_a_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) valid_q <= '0;
    else if (advance) valid_q <= {valid_q[Stages-2:0], issue};
  end
  always_ff @(posedge clk_i) begin
    if (advance) begin
      normalize_q  <= {normalize_q[Stages-2:0], state_q == Normalize};
      first_q      <= {first_q[Stages-2:0], read_first};
      last_q       <= {last_q[Stages-2:0], read_last};
      keep_q       <= {keep_q[(Stages-1)*Lanes-1:0], issue_keep};
      logits_a_q   <= buffer_q[read_addr_q];
      max_a_q      <= max_q;
      mantissa_a_q <= vector_mantissa_q;
      mantissa_b_q <= mantissa_a_q;
      shift_a_q    <= vector_shift_q;
      shift_b_q    <= shift_a_q;
      shift_c_q    <= shift_b_q;
    end
  end

  // B .. G: the exponent lanes.
  logic [Lanes*33-1:0] exp_g;
  for (genvar i = 0; i < Lanes; i++) begin : gen_exp
    st_softmax_exp_lane #(
        .InBits   (InBits),
        .TableFile(ExpTableFile)
    ) u_exp (
        .clk_i     (clk_i),
        .en_i      (advance),
        .max_i     (max_a_q),
        .z_i       (logits_a_q[i*InBits+:InBits]),
        .mantissa_i(mantissa_b_q),
        .shift_i   (shift_c_q),
        .keep_i    (keep_q[5*Lanes+i]),  // stage F
        .e_o       (exp_g[i*33+:33])
    );
  end

  // H: pass 2 sums the lanes; pass 3 multiplies by R.
  logic [31:0] reciprocal_mantissa;
  logic [5:0] reciprocal_exponent;
  logic [LaneSumBits-1:0] lane_sum;
  always_comb begin
    lane_sum = '0;
    for (int i = 0; i < Lanes; i++) lane_sum = lane_sum + LaneSumBits'(exp_g[i*33+:33]);
  end
  logic [LaneSumBits-1:0] lane_sum_h_q;
  logic [Lanes*64-1:0] scaled_h_q;
  logic [Lanes*16-1:0] weight_h_q;  // Normalized = 0: E = (e + 2^16) >> 17 (e <= 2^32)
  always_ff @(posedge clk_i) begin
    if (advance) begin
      lane_sum_h_q <= lane_sum;
      for (int i = 0; i < Lanes; i++) begin
        scaled_h_q[i*64+:64] <= 64'(exp_g[i*33+:33]) * 64'(reciprocal_mantissa);
        weight_h_q[i*16+:16] <= 16'(((exp_g[i*33+16+:17]) + 17'd1) >> 1);
      end
    end
  end

  // I: pass 2 accumulates S; pass 3 rounds p = e R / 2^(L+15) as
  // (((e R / 2^46) >> (L - 32)) + 1) >> 1 (L >= 32 because S >= 2^32).
  logic [SumBits-1:0] sum_q;
  logic               sum_done_q;
  logic [Lanes*16-1:0] probability_i_q;
  wire [5:0] output_shift = reciprocal_exponent - 6'd32;
  logic [Lanes*16-1:0] probability;
  always_comb begin
    for (int i = 0; i < Lanes; i++) begin
      probability[i*16+:16] = 16'(((scaled_h_q[i*64+46+:18] >> output_shift) + 18'd1) >> 1);
    end
  end
  wire sum_step = advance && valid_q[7] && !normalize_q[7];
  always_ff @(posedge clk_i) begin
    if (!rst_ni) sum_done_q <= 1'b0;
    else sum_done_q <= sum_step && last_q[7];
  end
  always_ff @(posedge clk_i) begin
    if (sum_step) sum_q <= (first_q[7] ? '0 : sum_q) + SumBits'(lane_sum_h_q);
    if (advance) probability_i_q <= Normalized ? probability : weight_h_q;
  end

  // Normalized = 0: S_E sums the emitted weights (<= n * 2^15); the reciprocal takes S_E * 2^17,
  // in the Q1.32 domain of S (>= 2^32: the maximum weighs 2^15).
  logic [SumBits-18:0] weight_sum_q;
  logic                weight_sum_done_q;
  logic [LaneSumBits-17-1:0] weight_lane_sum;
  always_comb begin
    weight_lane_sum = '0;
    for (int i = 0; i < Lanes; i++)
      weight_lane_sum = weight_lane_sum + (LaneSumBits - 17)'(weight_h_q[i*16+:16]);
  end
  wire weight_step = !Normalized && advance && valid_q[7];
  always_ff @(posedge clk_i) begin
    if (!rst_ni) weight_sum_done_q <= 1'b0;
    else weight_sum_done_q <= weight_step && last_q[7];
  end
  always_ff @(posedge clk_i) begin
    if (weight_step)
      weight_sum_q <= (first_q[7] ? '0 : weight_sum_q) + (SumBits - 17)'(weight_lane_sum);
  end

  st_softmax_reciprocal #(
      .SumBits  (SumBits),
      .TableFile(ReciprocalTableFile)
  ) u_reciprocal (
      .clk_i     (clk_i),
      .rst_ni    (rst_ni),
      .start_i   (Normalized ? sum_done_q : weight_sum_done_q),
      .sum_i     (Normalized ? sum_q : {weight_sum_q, 17'd0}),
      .done_o    (reciprocal_done),
      .mantissa_o(reciprocal_mantissa),
      .exponent_o(reciprocal_exponent)
  );

  assign norm_valid_o    = !Normalized && reciprocal_done;
  assign norm_mantissa_o = reciprocal_mantissa;
  assign norm_exponent_o = reciprocal_exponent;

  // ---- output ---------------------------------------------------------------------------------
  wire  output_valid = valid_q[8] && normalize_q[8];
  logic output_ready;
  assign advance = output_ready || !output_valid;

  st_skid_buffer #(
      .Width(Lanes * 16)
  ) u_out_slice (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .valid_i(output_valid),
      .ready_o(output_ready),
      .data_i (probability_i_q),
      .valid_o(valid_o),
      .ready_i(ready_i),
      .data_o (data_o)
  );

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && cfg_valid_i && cfg_ready_o)
      assert (cfg_data_i[LenBits-1:0] >= 1 && cfg_data_i[LenBits-1:0] <= LenBits'(MaxLen))
      else $error("st_softmax: config length %0d outside 1 .. %0d", cfg_data_i[LenBits-1:0],
                  MaxLen);
    // Every accepted token holds at least one element of the vector.
    if (rst_ni && accept) assert (node_valid[0]);
    // S includes the maximum's own 2^32.
    if (rst_ni && sum_done_q) assert (sum_q >= (SumBits'(1) << 32));
    if (rst_ni && weight_sum_done_q) assert (weight_sum_q >= (SumBits - 17)'(1 << 15));
  end
`endif

  /* verilator lint_off UNUSEDSIGNAL */
  // Control fields of the last stage and the high product bits that the ranges rule out.
  wire unused_bits = ^{first_q[8], last_q[8], keep_q[Stages*Lanes-1:6*Lanes], scaled_h_q};
  /* verilator lint_on UNUSEDSIGNAL */

endmodule

`default_nettype wire
