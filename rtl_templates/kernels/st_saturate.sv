// st_saturate: combinational saturation of an exact signed value to an OutBits-bit code, signed
// (-2^(OutBits-1) .. 2^(OutBits-1) - 1) or unsigned (0 .. 2^OutBits - 1), as ir::saturate does
// for the tensor graph's integer types. Used by st_matmul and st_reduce at their single rounding-
// free saturation point. The comparisons run in a width holding both the value and the bounds,
// so any InBits/OutBits pair is exact; bounds the value cannot cross fold away in synthesis.
`default_nettype none

module st_saturate #(
    /// Width of the signed input value (>= 2).
    parameter int unsigned InBits = 32,
    /// Width of the output code (1 .. 64).
    parameter int unsigned OutBits = 16,
    /// 1: signed output range, 0: unsigned.
    parameter int unsigned OutSigned = 1
) (
    input  wire  signed [ InBits-1:0] value_i,
    output logic        [OutBits-1:0] code_o
);

  if (InBits < 2 || OutBits < 1 || OutBits > 64) begin : gen_bad_bits
    $fatal(1, "st_saturate: InBits must be >= 2, OutBits 1 .. 64");
  end

  localparam int unsigned CmpBits = (InBits > OutBits + 1) ? InBits : OutBits + 2;
  localparam logic signed [CmpBits-1:0] One = CmpBits'(1);
  localparam logic signed [CmpBits-1:0] Max =
      (OutSigned != 0) ? (One <<< (OutBits - 1)) - One : (One <<< OutBits) - One;
  localparam logic signed [CmpBits-1:0] Min = (OutSigned != 0) ? -Max - One : '0;

  wire signed [CmpBits-1:0] value = CmpBits'(value_i);
  assign code_o = (value > Max) ? OutBits'(Max) : (value < Min) ? OutBits'(Min) : OutBits'(value);

endmodule

`default_nettype wire
