// st_softmax_reciprocal: the softmax normalizer 1/S = R * 2^-(30 + L), bit-exact with
// st::numerics::reciprocalRefined (docs/numerics.md §5): L = leading one of S, the 16 bits
// below it rounded (half up) select and weight the reciprocal table (1/m, 257 entries u18
// Q1.17, linear interpolation rounding half away from zero) for the seed r0; m = S / 2^L rounded
// to Q1.30; one Newton step R = round(r0 * (2^48 - m * r0) / 2^34), computed exactly.
//
// One computation per vector, so it is a plain six-stage pipeline: start_i with sum_i in cycle
// s gives done_o with mantissa_o/exponent_o in cycle s + 6 (the outputs hold until the next
// result). S must be >= 2^32 (softmax's maximum element alone contributes 2^32).
`default_nettype none

module st_softmax_reciprocal #(
    /// Width of S (33 .. 63): 33 + ceil(log2(longest vector)).
    parameter int unsigned SumBits = 45,
    /// $readmemh file of the reciprocal table: 257 entries u18 Q1.17 (st_tables writes it).
    parameter TableFile = ""
) (
    input  wire                clk_i,
    input  wire                rst_ni,      // synchronous, active low
    input  wire                start_i,
    input  wire  [SumBits-1:0] sum_i,
    output logic               done_o,
    output logic [       31:0] mantissa_o,  // R, Q1.30
    output logic [        5:0] exponent_o   // L
);

  if (SumBits < 33 || SumBits > 63) begin : gen_bad_sum_bits
    $fatal(1, "st_softmax_reciprocal: SumBits must be 33 .. 63");
  end

  localparam int unsigned EntryBits = 18;
  logic [EntryBits-1:0] table_q[257];
  // Guarded so that a tool elaborating this module alone with the default "" (Yosys reads
  // submodules before the parent's parameters reach them) does not try to open "".
  if (TableFile != "") begin : gen_load_table
    initial begin
      $readmemh(TableFile, table_q);
    end
  end

  logic [5:0] done_q;  // one valid bit per stage
  always_ff @(posedge clk_i) begin
    if (!rst_ni) done_q <= '0;
    else done_q <= {done_q[4:0], start_i};
  end
  assign done_o = done_q[5];

  // 1: S and its leading one.
  logic [5:0] lead;
  always_comb begin
    lead = '0;
    for (int i = 0; i < SumBits; i++) if (sum_i[i]) lead = 6'(i);
  end
  logic [SumBits-1:0] sum_1_q;
  logic [5:0] lead_1_q;
  // 2: table offset (m - 1) in Q0.16 and m in Q1.30, both rounded half up.
  wire [SumBits:0] offset_shifted = {sum_1_q, 1'b0} >> (lead_1_q - 6'd16);
  wire [SumBits:0] offset_rounded = (offset_shifted + 1'b1) >> 1;  // in [2^16, 2^17]
  wire [SumBits:0] m_shifted = {sum_1_q, 1'b0} >> (lead_1_q - 6'd30);
  wire [SumBits:0] m_rounded = (m_shifted + 1'b1) >> 1;  // in [2^30, 2^31]
  logic [16:0] offset_2_q;
  logic [31:0] m_2_q;
  logic [5:0] lead_2_q;
  // 3: the two table entries and the weight.
  wire [8:0] index = offset_2_q[16:8];
  wire [8:0] index_next = (index == 9'd256) ? 9'd256 : index + 9'd1;
  logic [EntryBits-1:0] left_3_q, right_3_q;
  logic [7:0] weight_3_q;
  logic [31:0] m_3_q;
  logic [5:0] lead_3_q;
  // 4: the seed r0 (Q1.17).
  wire signed [EntryBits:0] slope = $signed({1'b0, right_3_q}) - $signed({1'b0, left_3_q});
  wire signed [EntryBits+9:0] slope_times_weight = slope * $signed({1'b0, weight_3_q});
  wire signed [EntryBits+9:0] rounding_bias =
      slope_times_weight[EntryBits+9] ? (EntryBits + 10)'(127) : (EntryBits + 10)'(128);
  wire signed [EntryBits+9:0] rounded_step = (slope_times_weight + rounding_bias) >>> 8;
  logic [EntryBits-1:0] seed_4_q;
  logic [31:0] m_4_q;
  logic [5:0] lead_4_q;
  // 5: 2 - m * r0 in Q.47 (>= 0 since m * r0 <= 2^48).
  wire [49:0] m_times_seed = 50'(m_4_q) * 50'(seed_4_q);
  logic [48:0] two_minus_5_q;
  logic [EntryBits-1:0] seed_5_q;
  logic [5:0] lead_5_q;
  // 6: R = round(r0 * (2 - m r0) / 2^34), half up.
  wire [66:0] refined = 67'(seed_5_q) * 67'(two_minus_5_q);
  wire [66:0] refined_rounded = refined + (67'(1) << 33);

  always_ff @(posedge clk_i) begin
    sum_1_q       <= sum_i;
    lead_1_q      <= lead;
    offset_2_q    <= offset_rounded[16:0] - 17'h10000;
    m_2_q         <= m_rounded[31:0];
    lead_2_q      <= lead_1_q;
    left_3_q      <= table_q[index];
    right_3_q     <= table_q[index_next];
    weight_3_q    <= offset_2_q[7:0];
    m_3_q         <= m_2_q;
    lead_3_q      <= lead_2_q;
    seed_4_q      <= left_3_q + rounded_step[EntryBits-1:0];
    m_4_q         <= m_3_q;
    lead_4_q      <= lead_3_q;
    two_minus_5_q <= 49'((50'(1) << 48) - m_times_seed);
    seed_5_q      <= seed_4_q;
    lead_5_q      <= lead_4_q;
    if (done_q[4]) begin
      mantissa_o <= refined_rounded[65:34];
      exponent_o <= lead_5_q;
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  // Bits that are zero by the ranges above (offset <= 2^17, m <= 2^31, R < 2^32).
  wire unused_bits = ^{offset_rounded[SumBits:17], m_rounded[SumBits:32], refined_rounded[66],
                       refined_rounded[33:0], rounded_step[EntryBits+9:EntryBits]};
  /* verilator lint_on UNUSEDSIGNAL */

endmodule

`default_nettype wire
