// st_round_shift: combinational rounding right shift by a runtime amount, then saturation.
//
// For a signed value x and a shift s (0 .. 63):
//   SymmetricRounding = 1: floor((x + 2^(s-1) - (x < 0)) / 2^s)  (round half away from zero,
//                          st::numerics::roundShiftRight, docs/numerics.md §2)
//   SymmetricRounding = 0: floor((x + 2^(s-1)) / 2^s)            (round half up)
//   s = 0 returns x unchanged. The result is saturated to OutWidth signed bits.
// No wide rounding constant is built: for s >= 1 the result is ((x' >>> (s-1)) + 1) >>> 1 with
// x' = x - (x < 0) (or x), which equals the formulas above for every s, also s >= InWidth.
// Combinational; the caller registers the output.
`default_nettype none

module st_round_shift #(
    /// Width of the signed input (>= 2).
    parameter int unsigned InWidth = 40,
    /// Width of the signed, saturated output (>= 2).
    parameter int unsigned OutWidth = 8,
    /// 1: round half away from zero; 0: round half up.
    parameter int unsigned SymmetricRounding = 1
) (
    input  wire  [ InWidth-1:0] value_i,  // signed
    input  wire  [         5:0] shift_i,
    output logic [OutWidth-1:0] value_o   // signed
);

  if (InWidth < 2 || OutWidth < 2) begin : gen_bad_width
    $fatal(1, "st_round_shift: InWidth and OutWidth must be >= 2");
  end
  if (SymmetricRounding > 1) begin : gen_bad_mode
    $fatal(1, "st_round_shift: SymmetricRounding must be 0 or 1");
  end

  // One guard bit for x - 1 and one for the + 1 of the final halving.
  localparam int unsigned Wide = InWidth + 2;

  wire signed [Wide-1:0] value = Wide'($signed(value_i));
  wire negative = (SymmetricRounding != 0) && value_i[InWidth-1];
  wire signed [Wide-1:0] biased = value - Wide'(negative);
  wire signed [Wide-1:0] halved = biased >>> (shift_i - 6'd1);
  wire signed [Wide-1:0] rounded = (shift_i == 6'd0) ? value : (halved + Wide'(1)) >>> 1;

  if (OutWidth >= Wide) begin : gen_no_saturation
    assign value_o = OutWidth'(rounded);
  end else begin : gen_saturation
    localparam logic signed [Wide-1:0] Max = {{(Wide - OutWidth + 1) {1'b0}}, {(OutWidth - 1) {1'b1}}};
    localparam logic signed [Wide-1:0] Min = ~Max;
    always_comb begin
      if (rounded > Max) value_o = OutWidth'(Max);
      else if (rounded < Min) value_o = OutWidth'(Min);
      else value_o = OutWidth'(rounded);
    end
  end

endmodule

`default_nettype wire
