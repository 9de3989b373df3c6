// st_requantize: element-wise requantization y = sat_OutBits(round(x * M)) of a stream of signed
// integers (e.g. an s32 accumulator to s8 codes), bit-exact with st::numerics::requantize
// (docs/numerics.md §6; round = half away from zero, M = mantissa * 2^-shift a FixedScale).
// Where the golden model throws because round(x * M) leaves the int64 range (InBits > 40 with a
// small shift) the kernel saturates.
//
// Streams: data_i carries Lanes signed InBits-bit values per token (element i at bits
// [i*InBits +: InBits]), data_o Lanes signed OutBits-bit codes. Stateless: a vector of N elements
// is ceil(N/Lanes) tokens; padding lanes are computed and ignored. II = 1. The scale is an input
// sampled with each token at its handshake (constant-tied by the compiler, or a control
// register when one instance serves several tensors).
//
// Pipeline (Depth = 6 with ideal streams, 8 for InBits > 34): 1-2 value * mantissa (partial
// products, their sum; for InBits > 34 the partial products are summed in pairs and the pairs
// in two halves, two stages more), 3-5 rounding shift + saturation (st_round_shift,
// pipelined), 6 output register slice (st_skid_buffer); all stages advance while the slice's
// registered ready is high. The whole pipeline is st_scale_output.
`default_nettype none

module st_requantize #(
    /// Elements per token (>= 1).
    parameter int unsigned Lanes = 4,
    /// Signed input width (2 .. 48).
    parameter int unsigned InBits = 32,
    /// Signed output code width (2 .. 32).
    parameter int unsigned OutBits = 8
) (
    input  wire                      clk_i,
    input  wire                      rst_ni,      // synchronous, active low
    input  wire                      valid_i,
    output logic                     ready_o,
    input  wire  [ Lanes*InBits-1:0] data_i,
    // FixedScale, sampled with each input token
    input  wire  [             23:0] mantissa_i,
    input  wire  [              5:0] shift_i,
    output logic                     valid_o,
    input  wire                      ready_i,
    output logic [Lanes*OutBits-1:0] data_o
);

  if (Lanes < 1) begin : gen_bad_lanes
    $fatal(1, "st_requantize: Lanes must be >= 1");
  end
  if (InBits < 2 || InBits > 48 || OutBits < 2 || OutBits > 32) begin : gen_bad_bits
    $fatal(1, "st_requantize: InBits must be 2 .. 48 and OutBits 2 .. 32");
  end

  // Stage 1 value * mantissa, stage 2 rounding shift + saturation, then the register slice.
  st_scale_output #(
      .Lanes   (Lanes),
      .InBits  (InBits),
      .OutBits (OutBits),
      .Multiply(1),
      .Stages  (InBits > 34 ? 7 : 5)
  ) u_scale_output (
      .clk_i     (clk_i),
      .rst_ni    (rst_ni),
      .valid_i   (valid_i),
      .advance_o (ready_o),
      .value_i   (data_i),
      .mantissa_i(mantissa_i),
      .shift_i   (shift_i),
      .valid_o   (valid_o),
      .ready_i   (ready_i),
      .data_o    (data_o)
  );

endmodule

`default_nettype wire
