// st_round_shift: rounding right shift by a runtime amount, then saturation.
//
// For a signed value x and a shift s (0 .. 63):
//   SymmetricRounding = 1: floor((x + 2^(s-1) - (x < 0)) / 2^s)  (round half away from zero,
//                          st::numerics::roundShiftRight, docs/numerics.md §2)
//   SymmetricRounding = 0: floor((x + 2^(s-1)) / 2^s)            (round half up)
//   s = 0 returns x unchanged. The result is saturated to OutWidth signed bits.
// No adder as wide as x is built: with q = x >>> s, r = bit s-1 of x (the round bit) and
// k = bits s-2 .. 0 of x not all zero, the result is q + inc, where inc = r (half up) or
// inc = r and (x >= 0 or k) (half away from zero); for s = 0, r = 0. Only the low OutWidth bits
// of q take the + inc; the bits above decide the saturation (all equal to the sign, or not),
// and q = Max with inc = 1 saturates too.
//
// Pipelined = 0: the same logic combinational; the caller registers the output (clk_i, enable_i
// unused).
// Pipelined = 1: three registers, latency 3, all loaded on enable_i: (1) q's low OutWidth bits
// with r, and k and the range test (x's bits from OutWidth - 1 + s up all equal to its sign)
// ORed in groups of three; (2) q, q + 1, inc, the range test, q = Max; (3) the result (value_o is
// a register output).
`default_nettype none

module st_round_shift #(
    /// Width of the signed input (>= 2).
    parameter int unsigned InWidth = 40,
    /// Width of the signed, saturated output (>= 2).
    parameter int unsigned OutWidth = 8,
    /// 1: round half away from zero; 0: round half up.
    parameter int unsigned SymmetricRounding = 1,
    /// 0: combinational; 1: three register stages (latency 3).
    parameter int unsigned Pipelined = 0
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire                 clk_i,     // Pipelined = 1 only
    input  wire                 enable_i,  // Pipelined = 1 only: all stages advance
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire  [ InWidth-1:0] value_i,   // signed
    input  wire  [         5:0] shift_i,
    output logic [OutWidth-1:0] value_o    // signed
);

  if (InWidth < 2 || OutWidth < 2) begin : gen_bad_width
    $fatal(1, "st_round_shift: InWidth and OutWidth must be >= 2");
  end
  if (SymmetricRounding > 1 || Pipelined > 1) begin : gen_bad_mode
    $fatal(1, "st_round_shift: SymmetricRounding and Pipelined must be 0 or 1");
  end

  // ---- stage 1: shift; the round and range tests ORed in groups of three -------------------------
  // t = {x, 0} >>> s holds q = x >>> s above and the round bit r in bit 0.
  wire signed [InWidth:0] doubled = {value_i, 1'b0};
  /* verilator lint_off UNUSEDSIGNAL */
  wire signed [InWidth:0] shifted = doubled >>> shift_i;  // the bits above KeepBits unused
  /* verilator lint_on UNUSEDSIGNAL */
  // k: the bits of {x, 0} below position s (x's bits below s - 1) are not all zero.
  localparam int unsigned Groups = (InWidth + 3) / 3;
  logic [3*Groups-1:0] below_shift;
  logic [Groups-1:0] below_group;
  always_comb begin
    below_shift = '0;
    for (int unsigned i = 0; i <= InWidth; i++) below_shift[i] = doubled[i] && (i < shift_i);
    for (int unsigned g = 0; g < Groups; g++) below_group[g] = |below_shift[3*g+:3];
  end
  wire sign = value_i[InWidth-1];
  // q = x >>> s fits OutWidth signed bits when x's bits OutWidth - 1 + s .. InWidth - 1 all
  // equal its sign (always without saturation): a mismatch per bit.
  localparam int unsigned HighBits = (OutWidth > InWidth) ? 1 : InWidth - OutWidth + 1;
  localparam int unsigned HighGroups = (HighBits + 2) / 3;
  logic [3*HighGroups-1:0] mismatch;
  logic [HighGroups-1:0] mismatch_group;
  always_comb begin
    mismatch = '0;
    if (OutWidth <= InWidth) begin
      for (int unsigned i = 0; i < HighBits; i++)
        mismatch[i] = (value_i[OutWidth-1+i] != sign) && (i >= shift_i);
    end
    for (int unsigned g = 0; g < HighGroups; g++) mismatch_group[g] = |mismatch[3*g+:3];
  end
  // q's low bits, as many as the result has (all of q without saturation), and r
  localparam int unsigned KeepBits = (OutWidth > InWidth) ? InWidth : OutWidth;

  logic [KeepBits:0] shifted_s;
  logic [Groups-1:0] below_group_s;
  logic [HighGroups-1:0] mismatch_group_s;
  logic sign_s;
  if (Pipelined != 0) begin : gen_stage1
    always_ff @(posedge clk_i) begin
      if (enable_i) begin
        shifted_s <= shifted[KeepBits:0];
        below_group_s <= below_group;
        mismatch_group_s <= mismatch_group;
        sign_s <= sign;
      end
    end
  end else begin : gen_stage1_wire
    assign shifted_s = shifted[KeepBits:0];
    assign below_group_s = below_group;
    assign mismatch_group_s = mismatch_group;
    assign sign_s = sign;
  end

  // ---- stage 2: inc, the range test, q = Max, q + 1 -------------------------------------------
  wire [KeepBits-1:0] quotient = shifted_s[KeepBits:1];
  wire negative = (SymmetricRounding != 0) && sign_s;
  wire increment = shifted_s[0] && (!negative || (|below_group_s));
  wire in_range = !(|mismatch_group_s);
  // q's low OutWidth - 1 bits all ones: with in_range and x >= 0, q = Max
  wire low_ones = &quotient[KeepBits-2:0];
  wire [KeepBits-1:0] plus_one = quotient + KeepBits'(1);

  /* verilator lint_off UNUSEDSIGNAL */
  logic [KeepBits-1:0] quotient_t, plus_one_t;
  logic increment_t, in_range_t, low_ones_t, sign_t;  // some unused without saturation
  /* verilator lint_on UNUSEDSIGNAL */
  if (Pipelined != 0) begin : gen_stage2
    always_ff @(posedge clk_i) begin
      if (enable_i) begin
        quotient_t <= quotient;
        plus_one_t <= plus_one;
        increment_t <= increment;
        in_range_t <= in_range;
        low_ones_t <= low_ones;
        sign_t <= sign_s;
      end
    end
  end else begin : gen_stage2_wire
    assign quotient_t = quotient;
    assign plus_one_t = plus_one;
    assign increment_t = increment;
    assign in_range_t = in_range;
    assign low_ones_t = low_ones;
    assign sign_t = sign_s;
  end

  // ---- stage 3: select q + inc, or saturate ---------------------------------------------------
  logic [OutWidth-1:0] result;
  if (OutWidth > InWidth) begin : gen_no_saturation
    // inc = 1 needs s >= 1, so |q| < 2^(InWidth-2) and q + 1 fits InWidth signed bits
    wire [OutWidth-1:0] wide = OutWidth'($signed(quotient_t));
    wire [OutWidth-1:0] wide_plus_one = OutWidth'($signed(plus_one_t));
    assign result = increment_t ? wide_plus_one : wide;
  end else begin : gen_saturation
    localparam logic [OutWidth-1:0] Max = {1'b0, {(OutWidth - 1) {1'b1}}};
    localparam logic [OutWidth-1:0] Min = {1'b1, {(OutWidth - 1) {1'b0}}};
    wire saturate = !in_range_t || (!sign_t && low_ones_t && increment_t);
    always_comb begin
      if (saturate) result = sign_t ? Min : Max;
      else if (increment_t) result = plus_one_t;
      else result = quotient_t;
    end
  end

  if (Pipelined != 0) begin : gen_result_register
    always_ff @(posedge clk_i) begin
      if (enable_i) value_o <= result;
    end
  end else begin : gen_result_wire
    assign value_o = result;
  end

endmodule

`default_nettype wire
