// st_softmax_exp_lane: one lane of the softmax exponent pipeline (docs/numerics.md §5-§6):
//   d = max - z (>= 0), t = round(d * mantissa / 2^shift) (the logit-to-log2 FixedScale),
//   e = exp2Negative(-t, 32): t = n + f/2^16, 2^-f from the exp2_neg_frac table (Q1.20) by
//   linear interpolation, then a rounding shift by n - 12 (left for n < 12); e = 0 for n >= 34.
// Bit-exact with st::numerics::softmax's e_i (Q1.32, at most 2^32: 33 bits).
//
// Six register stages, all enabled by en_i (the parent's pipeline advance): B (d), C (product),
// D (n, f), E (table reads), F (interpolated mantissa), G (e_o). The parent supplies each
// per-vector operand aligned with the token at the stage that uses it: max_i and z_i with the
// token entering B, mantissa_i with the token in B, shift_i with the token in C, keep_i with the
// token in F (keep_i = 0 forces e = 0: lanes beyond the vector length).
`default_nettype none

module st_softmax_exp_lane #(
    /// Width of one signed logit (2 .. 32).
    parameter int unsigned InBits = 32,
    /// $readmemh file of the exp2_neg_frac table: 129 entries u21 Q1.20 (st_tables writes it).
    parameter TableFile = ""
) (
    input  wire                clk_i,
    input  wire                en_i,
    input  wire  [InBits-1:0]  max_i,       // token entering B
    input  wire  [InBits-1:0]  z_i,         // token entering B
    input  wire  [      23:0]  mantissa_i,  // token in B
    input  wire  [       5:0]  shift_i,     // token in C
    input  wire                keep_i,      // token in F
    output logic [      32:0]  e_o          // token in G
);

  localparam int unsigned ProductBits = InBits + 24;
  localparam int unsigned Segments = 128;
  localparam int unsigned EntryBits = 21;

  if (InBits < 2 || InBits > 32) begin : gen_bad_in_bits
    $fatal(1, "st_softmax_exp_lane: InBits must be 2 .. 32");
  end

  logic [EntryBits-1:0] table_q[Segments+1];
  // Guarded so that a tool elaborating this module alone with the default "" (Yosys reads
  // submodules before the parent's parameters reach them) does not try to open "".
  if (TableFile != "") begin : gen_load_table
    initial begin
      $readmemh(TableFile, table_q);
    end
  end

  // B: the difference, non-negative for every lane inside the vector.
  logic [InBits-1:0] difference_b_q;
  wire  [InBits:0]   difference = {max_i[InBits-1], max_i} - {z_i[InBits-1], z_i};
  // C: difference times the scale mantissa.
  logic [ProductBits-1:0] product_c_q;
  // D: t = round(product / 2^shift) split into n (saturated to 63) and f.
  wire [ProductBits:0] product_twice_shifted = {product_c_q, 1'b0} >> shift_i;
  wire [ProductBits:0] scaled = (product_twice_shifted + 1'b1) >> 1;  // half up: product >= 0
  wire [ProductBits-16:0] scaled_integer = scaled[ProductBits:16];
  logic [5:0] integer_d_q;
  logic [15:0] fraction_d_q;
  // E: the two table entries around f, and the interpolation weight.
  logic [EntryBits-1:0] left_e_q, right_e_q;
  logic [8:0] weight_e_q;
  logic [5:0] integer_e_q;
  // F: 2^-f in Q1.20 = T[i] + round((T[i+1] - T[i]) * r / 2^9), round half away from zero.
  wire signed [EntryBits:0] slope = $signed({1'b0, right_e_q}) - $signed({1'b0, left_e_q});
  wire signed [EntryBits+10:0] slope_times_weight = slope * $signed({1'b0, weight_e_q});
  wire signed [EntryBits+10:0] rounding_bias =
      slope_times_weight[EntryBits+10] ? (EntryBits + 11)'(255) : (EntryBits + 11)'(256);
  wire signed [EntryBits+10:0] rounded_step = (slope_times_weight + rounding_bias) >>> 9;
  logic [EntryBits-1:0] mantissa_f_q;
  logic [5:0] integer_f_q;
  // G: e = round(mantissa * 2^(12 - n)), as ((mantissa * 2^13 >> n) + 1) >> 1.
  wire [33:0] mantissa_shifted = {mantissa_f_q, 13'd0} >> integer_f_q;
  wire [33:0] exponential = (mantissa_shifted + 1'b1) >> 1;

  always_ff @(posedge clk_i) begin
    if (en_i) begin
      difference_b_q <= difference[InBits-1:0];
      product_c_q    <= ProductBits'(difference_b_q) * ProductBits'(mantissa_i);
      integer_d_q    <= (scaled_integer > (ProductBits - 15)'(63)) ? 6'd63 : scaled_integer[5:0];
      fraction_d_q   <= scaled[15:0];
      left_e_q       <= table_q[{1'b0, fraction_d_q[15:9]}];
      right_e_q      <= table_q[{1'b0, fraction_d_q[15:9]}+8'd1];
      weight_e_q     <= fraction_d_q[8:0];
      integer_e_q    <= integer_d_q;
      mantissa_f_q   <= left_e_q + rounded_step[EntryBits-1:0];
      integer_f_q    <= integer_e_q;
      e_o            <= keep_i ? exponential[32:0] : 33'd0;
    end
  end

  // difference[InBits] is the sign of max - z, which only lanes beyond the vector make negative.
  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_bits = ^{difference[InBits], exponential[33], rounded_step[EntryBits+10:EntryBits]};
  /* verilator lint_on UNUSEDSIGNAL */

endmodule

`default_nettype wire
