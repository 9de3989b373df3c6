// st_activation: element-wise GELU (erf or tanh form) or SiLU on a stream of quantized codes,
// bit-exact with st::numerics::gelu / silu (docs/numerics.md §6):
//   x = sat32(round(code * inputToFixed))            codes -> Q.11
//   g = relu(x) - h(|x|)                              st_activation_unit (table + interpolation)
//   y = sat_OutBits(round(g * fixedToOutput))         Q.11 -> output codes
// (round = half away from zero).
//
// Streams: data_i carries Lanes signed InBits-bit codes per token (element i at bits
// [i*InBits +: InBits]), data_o Lanes signed OutBits-bit codes. The kernel is stateless: a
// vector of N elements is ceil(N/Lanes) tokens, and the padding lanes of a last partial token
// are computed like any element and ignored by the consumer. One token per cycle (II = 1).
// Scales: the two FixedScale multipliers (ActivationScales) are inputs sampled with each token in
// the cycle of its input handshake, so one instance can serve layers with different scales; the
// compiler ties them to constants (then synthesis folds them) or to a control register.
//
// Pipeline (Depth = 14 registers from input handshake to output handshake with ideal streams):
// 1 code * mantissa, 2-4 rounding shift + sat32 (st_round_shift, pipelined), 5-8
// st_activation_unit, 9-10 g * mantissa (partial products, their sum), 11-13 rounding shift +
// saturation, 14 output register slice (st_skid_buffer); stages 9-14 and the valid bits are
// st_scale_output. All stages advance together while the register slice can take
// a token (its registered ready), so a stall costs no throughput and ready_o is a flop output.
`default_nettype none

module st_activation #(
    /// 0: GELU, erf form; 1: GELU, tanh form; 2: SiLU.
    parameter int unsigned Function = 0,
    /// Elements per token (>= 1).
    parameter int unsigned Lanes = 4,
    /// Signed input code width (2 .. 32).
    parameter int unsigned InBits = 16,
    /// Signed output code width (2 .. 32).
    parameter int unsigned OutBits = 8,
    /// $readmemh file of the residual table matching Function: <build>/tables/
    /// gelu_erf_residual.mem, gelu_tanh_residual.mem or silu_residual.mem. Mandatory.
    parameter TableFile = ""
) (
    input  wire                      clk_i,
    input  wire                      rst_ni,          // synchronous, active low
    input  wire                      valid_i,
    output logic                     ready_o,
    input  wire  [ Lanes*InBits-1:0] data_i,
    // ActivationScales, sampled with each input token
    input  wire  [             23:0] in_mantissa_i,   // inputToFixed
    input  wire  [              5:0] in_shift_i,
    input  wire  [             23:0] out_mantissa_i,  // fixedToOutput
    input  wire  [              5:0] out_shift_i,
    output logic                     valid_o,
    input  wire                      ready_i,
    output logic [Lanes*OutBits-1:0] data_o
);

  if (Function > 2) begin : gen_bad_function
    $fatal(1, "st_activation: Function must be 0 (GELU erf), 1 (GELU tanh) or 2 (SiLU)");
  end
  if (Lanes < 1) begin : gen_bad_lanes
    $fatal(1, "st_activation: Lanes must be >= 1");
  end
  if (InBits < 2 || InBits > 32 || OutBits < 2 || OutBits > 32) begin : gen_bad_bits
    $fatal(1, "st_activation: InBits and OutBits must be 2 .. 32");
  end

  localparam int unsigned InProductBits = InBits + 25;   // signed code * unsigned 24-bit
  localparam int unsigned Stages = 13;                    // before the register slice

  logic advance;  // all stages advance: the register slice can take a token this cycle
  assign ready_o = advance;

  // ---- scales travel with their token (not reset) ---------------------------------------------
  logic [5:0] in_shift1_q;
  logic [23:0] out_mantissa_q[1:8];
  logic [5:0] out_shift_q[1:8];
  always_ff @(posedge clk_i) begin
    if (advance) begin
      in_shift1_q <= in_shift_i;
      out_mantissa_q[1] <= out_mantissa_i;
      out_shift_q[1] <= out_shift_i;
      for (int unsigned s = 2; s <= 8; s++) out_mantissa_q[s] <= out_mantissa_q[s-1];
      for (int unsigned s = 2; s <= 8; s++) out_shift_q[s] <= out_shift_q[s-1];
    end
  end

  logic [Lanes*32-1:0] activated;  // stage 8: g per lane

  for (genvar lane = 0; lane < Lanes; lane++) begin : gen_lane
    // stage 1: code * inputToFixed mantissa
    logic signed [InProductBits-1:0] in_product_q;
    always_ff @(posedge clk_i) begin
      if (advance)
        in_product_q <= InProductBits'($signed(data_i[lane*InBits+:InBits])) *
                        $signed({1'b0, in_mantissa_i});
    end

    // stages 2-4: round, shift and saturate to 32-bit Q.11
    logic [31:0] fixed_q;
    st_round_shift #(
        .InWidth  (InProductBits),
        .OutWidth (32),
        .Pipelined(1)
    ) u_to_fixed (
        .clk_i   (clk_i),
        .enable_i(advance),
        .value_i (in_product_q),
        .shift_i (in_shift1_q),
        .value_o (fixed_q)
    );

    // stages 5-8: the function
    st_activation_unit #(
        .Function (Function),
        .TableFile(TableFile)
    ) u_function (
        .clk_i   (clk_i),
        .enable_i(advance),
        .x_i     (fixed_q),
        .y_o     (activated[lane*32+:32])
    );
  end

  // ---- stages 9-10 g * fixedToOutput mantissa, 11-13 rounding + saturation, 14 slice -------
  st_scale_output #(
      .Lanes   (Lanes),
      .InBits  (32),
      .OutBits (OutBits),
      .Multiply(1),
      .Stages  (Stages)
  ) u_scale_output (
      .clk_i     (clk_i),
      .rst_ni    (rst_ni),
      .valid_i   (valid_i),
      .advance_o (advance),
      .value_i   (activated),
      .mantissa_i(out_mantissa_q[8]),
      .shift_i   (out_shift_q[8]),
      .valid_o   (valid_o),
      .ready_i   (ready_i),
      .data_o    (data_o)
  );

endmodule

`default_nettype wire
