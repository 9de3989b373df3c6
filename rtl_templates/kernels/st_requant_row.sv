// st_requant_row: the requantization of one GEMV output row, bit-exact with
// st::numerics::requantizeValue(acc + bias, {mantissa, shift}, out bits) (docs/numerics.md §2-3):
// y = sat_b(round((acc + bias) * mantissa / 2^shift)), round half away from zero, saturated to
// the b = out_bits_i bits of the invocation and sign-extended to OutBits. Where the golden model
// throws because the rounded value leaves the int64 range, the row saturates.
//
// Four register stages, all advancing on en_i (the caller tracks which stage holds a valid row):
//   r1  acc + bias (exact)                  r2  x mantissa (u24, exact)
//   r3  + rounding constant 2^(s-1) - (x < 0)                      r4  >>> s, saturate to b bits
// Used per row by st_linear (b tied to its OutBits) and per output lane by st_gemv_engine.
`default_nettype none

module st_requant_row #(
    /// Width of the signed accumulator input (>= 2).
    parameter int unsigned AccBits = 40,
    /// Width of the output code (2 .. 32): codes are saturated to out_bits_i bits, then
    /// sign-extended to OutBits.
    parameter int unsigned OutBits = 8
) (
    input  wire                clk_i,
    input  wire                en_i,        // all four stages advance
    input  wire  [AccBits-1:0] acc_i,       // signed, sampled into r1
    input  wire  [       47:0] bias_i,      // signed s48, accumulator units, sampled into r1
    input  wire  [       23:0] mantissa_i,  // u24 output multiplier mantissa, sampled into r1
    input  wire  [        5:0] shift_i,     // u6 output multiplier shift, sampled into r1
    input  wire  [        5:0] out_bits_i,  // 2 .. OutBits: saturation width, sampled into r1
    output logic [OutBits-1:0] y_o          // r4: signed code, sign-extended to OutBits
);

  if (AccBits < 2) begin : gen_bad_acc
    $fatal(1, "st_requant_row: AccBits must be >= 2");
  end
  if (OutBits < 2 || OutBits > 32) begin : gen_bad_out
    $fatal(1, "st_requant_row: OutBits must be in 2..32");
  end

  localparam int unsigned BiasBits = 48;
  localparam int unsigned MantBits = 24;
  localparam int unsigned ShiftBits = 6;
  localparam int unsigned BiasedBits = (AccBits > BiasBits ? AccBits : BiasBits) + 1;
  localparam int unsigned MulBits = BiasedBits + MantBits;
  // The rounding constant reaches 2^62 (shift 63): one bit above it and the sign.
  localparam int unsigned RndBits = (MulBits > 63 ? MulBits : 63) + 1;

  logic signed [BiasedBits-1:0] biased_q;
  logic [MantBits-1:0] mant_r1_q;
  logic [ShiftBits-1:0] shift_r1_q, shift_r2_q, shift_r3_q;
  logic [5:0] bits_r1_q, bits_r2_q, bits_r3_q;
  logic signed [MulBits-1:0] mul_q;
  logic signed [RndBits-1:0] rnd_q;
  logic signed [OutBits-1:0] y_q;

  wire signed [RndBits-1:0] mul_ext = RndBits'(mul_q);
  wire signed [RndBits-1:0] round_const =
      shift_r2_q == '0 ? '0 : (RndBits'(1) <<< (shift_r2_q - 1'b1)) - RndBits'(mul_q < 0);
  wire signed [RndBits-1:0] shifted = rnd_q >>> shift_r3_q;
  // Saturation bounds of the invocation's width (constants where out_bits_i is tied).
  wire signed [RndBits-1:0] out_max = (RndBits'(1) <<< (bits_r3_q - 1'b1)) - RndBits'(1);
  wire signed [RndBits-1:0] out_min = -(RndBits'(1) <<< (bits_r3_q - 1'b1));

  always_ff @(posedge clk_i) begin
    if (en_i) begin
      biased_q <= BiasedBits'($signed(acc_i)) + BiasedBits'($signed(bias_i));
      mant_r1_q <= mantissa_i;
      shift_r1_q <= shift_i;
      bits_r1_q <= out_bits_i;
      mul_q <= MulBits'(biased_q) * MulBits'($signed({1'b0, mant_r1_q}));
      shift_r2_q <= shift_r1_q;
      bits_r2_q <= bits_r1_q;
      rnd_q <= mul_ext + round_const;
      shift_r3_q <= shift_r2_q;
      bits_r3_q <= bits_r2_q;
      y_q <= shifted > out_max ? OutBits'(out_max) :
             (shifted < out_min ? OutBits'(out_min) : OutBits'(shifted));
    end
  end
  assign y_o = y_q;

endmodule

`default_nettype wire
