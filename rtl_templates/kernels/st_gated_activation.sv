// st_gated_activation: the gated MLP product act(gate) * up of SwiGLU (act = SiLU) and GeGLU
// (act = GELU, erf or tanh form), bit-exact with st::numerics::swiglu / geglu (docs/numerics.md
// §6):
//   g = act(sat32(round(gate * gateToFixed)))        Q.11 (st_activation_unit)
//   u = sat32(round(up * upToFixed))                  Q.11
//   y = sat_OutBits(round(g * u * productToOutput))   Q.22 -> output codes, exact 89-bit product
// (round = half away from zero). Where the golden model throws because round(g * u * M) leaves
// the int64 range (only for multipliers that are not a real configuration) the kernel saturates.
//
// Streams: gate_data_i and up_data_i carry Lanes signed InBits-bit codes per token (element i at
// bits [i*InBits +: InBits]); they are joined element by element: a token is taken from both in
// the same cycle (each ready depends on the other stream's valid and on the pipeline having
// room). data_o carries Lanes signed OutBits-bit codes. Stateless: a vector of N elements is
// ceil(N/Lanes) tokens on each input; padding lanes of a last partial token are computed and
// ignored. II = 1. Scales (GatedScales): inputs sampled with each token pair at its handshake;
// the compiler ties them to constants or to a control register.
//
// Pipeline (Depth = 18 with ideal streams): 1 code * mantissa (both), 2-4 rounding shift + sat32
// (st_round_shift, pipelined), 5-8 st_activation_unit on the gate (up travels beside it), 9-10
// g * u (partial products, their sum), 11-14 * mantissa (partial products, pair sums, the low
// half of their sum, their sum), 15-17 rounding shift + saturation, 18 output register slice
// (st_skid_buffer); stages 11-18 and the valid bits are st_scale_output. All stages advance together while the slice's registered ready is high.
`default_nettype none

module st_gated_activation #(
    /// 0: GeGLU, GELU erf form; 1: GeGLU, GELU tanh form (Gemma); 2: SwiGLU (SiLU).
    parameter int unsigned Function = 2,
    /// Elements per token (>= 1).
    parameter int unsigned Lanes = 4,
    /// Signed code width of gate and up (2 .. 32).
    parameter int unsigned InBits = 16,
    /// Signed output code width (2 .. 32).
    parameter int unsigned OutBits = 8,
    /// $readmemh file of the residual table matching Function: <build>/tables/
    /// gelu_erf_residual.mem, gelu_tanh_residual.mem or silu_residual.mem. Mandatory.
    parameter TableFile = ""
) (
    input  wire                      clk_i,
    input  wire                      rst_ni,              // synchronous, active low
    input  wire                      gate_valid_i,
    output logic                     gate_ready_o,
    input  wire  [ Lanes*InBits-1:0] gate_data_i,
    input  wire                      up_valid_i,
    output logic                     up_ready_o,
    input  wire  [ Lanes*InBits-1:0] up_data_i,
    // GatedScales, sampled with each token pair
    input  wire  [             23:0] gate_mantissa_i,     // gateToFixed
    input  wire  [              5:0] gate_shift_i,
    input  wire  [             23:0] up_mantissa_i,       // upToFixed
    input  wire  [              5:0] up_shift_i,
    input  wire  [             23:0] product_mantissa_i,  // productToOutput
    input  wire  [              5:0] product_shift_i,
    output logic                     valid_o,
    input  wire                      ready_i,
    output logic [Lanes*OutBits-1:0] data_o
);

  if (Function > 2) begin : gen_bad_function
    $fatal(1, "st_gated_activation: Function must be 0 (GELU erf), 1 (GELU tanh) or 2 (SiLU)");
  end
  if (Lanes < 1) begin : gen_bad_lanes
    $fatal(1, "st_gated_activation: Lanes must be >= 1");
  end
  if (InBits < 2 || InBits > 32 || OutBits < 2 || OutBits > 32) begin : gen_bad_bits
    $fatal(1, "st_gated_activation: InBits and OutBits must be 2 .. 32");
  end

  localparam int unsigned InProductBits = InBits + 25;     // signed code * unsigned 24-bit
  localparam int unsigned GatedBits = 64;                  // s32 * s32
  localparam int unsigned Stages = 17;                     // before the register slice

  // ---- control: join the two inputs ----------------------------------------------------------
  logic advance;  // all stages advance: the register slice can take a token this cycle
  wire take = gate_valid_i && up_valid_i && advance;
  assign gate_ready_o = advance && up_valid_i;
  assign up_ready_o = advance && gate_valid_i;

  // ---- scales travel with their token (not reset) ---------------------------------------------
  logic [5:0] gate_shift1_q, up_shift1_q;
  logic [23:0] product_mantissa_q[1:10];
  logic [5:0] product_shift_q[1:10];
  always_ff @(posedge clk_i) begin
    if (advance) begin
      gate_shift1_q <= gate_shift_i;
      up_shift1_q <= up_shift_i;
      product_mantissa_q[1] <= product_mantissa_i;
      product_shift_q[1] <= product_shift_i;
      for (int unsigned s = 2; s <= 10; s++) product_mantissa_q[s] <= product_mantissa_q[s-1];
      for (int unsigned s = 2; s <= 10; s++) product_shift_q[s] <= product_shift_q[s-1];
    end
  end

  logic [Lanes*GatedBits-1:0] gated_q;  // stage 10: g * u per lane

  for (genvar lane = 0; lane < Lanes; lane++) begin : gen_lane
    // stage 1: codes * mantissas
    logic signed [InProductBits-1:0] gate_product_q, up_product_q;
    always_ff @(posedge clk_i) begin
      if (advance) begin
        gate_product_q <= InProductBits'($signed(gate_data_i[lane*InBits+:InBits])) *
                          $signed({1'b0, gate_mantissa_i});
        up_product_q <= InProductBits'($signed(up_data_i[lane*InBits+:InBits])) *
                        $signed({1'b0, up_mantissa_i});
      end
    end

    // stages 2-4: round, shift and saturate both to 32-bit Q.11
    logic [31:0] gate_fixed_q;
    logic [31:0] up_fixed_q[4:8];
    st_round_shift #(
        .InWidth  (InProductBits),
        .OutWidth (32),
        .Pipelined(1)
    ) u_gate_to_fixed (
        .clk_i   (clk_i),
        .enable_i(advance),
        .value_i (gate_product_q),
        .shift_i (gate_shift1_q),
        .value_o (gate_fixed_q)
    );
    st_round_shift #(
        .InWidth  (InProductBits),
        .OutWidth (32),
        .Pipelined(1)
    ) u_up_to_fixed (
        .clk_i   (clk_i),
        .enable_i(advance),
        .value_i (up_product_q),
        .shift_i (up_shift1_q),
        .value_o (up_fixed_q[4])
    );
    always_ff @(posedge clk_i) begin
      if (advance) begin
        for (int unsigned s = 5; s <= 8; s++) up_fixed_q[s] <= up_fixed_q[s-1];
      end
    end

    // stages 5-8: act(gate)
    logic [31:0] activated;
    st_activation_unit #(
        .Function (Function),
        .TableFile(TableFile)
    ) u_function (
        .clk_i   (clk_i),
        .enable_i(advance),
        .x_i     (gate_fixed_q),
        .y_o     (activated)
    );

    // stage 9: g * u's low 17 bits (unsigned) and g * its high 15 bits (signed); stage 10:
    // their sum g * u (Q.22, exact in 64 bits)
    wire signed [17:0] up_low = {1'b0, up_fixed_q[8][16:0]};
    wire signed [14:0] up_high = up_fixed_q[8][31:17];
    logic signed [49:0] low_product_q;
    logic signed [46:0] high_product_q;
    always_ff @(posedge clk_i) begin
      if (advance) begin
        low_product_q <= 50'($signed(activated)) * 50'(up_low);
        high_product_q <= 47'($signed(activated)) * 47'(up_high);
        gated_q[lane*GatedBits+:GatedBits] <=
            GatedBits'(low_product_q) + (GatedBits'(high_product_q) <<< 17);
      end
    end
  end

  // ---- stages 11-14 * productToOutput mantissa, 15-17 rounding + saturation, 18 slice ------
  st_scale_output #(
      .Lanes   (Lanes),
      .InBits  (GatedBits),
      .OutBits (OutBits),
      .Multiply(1),
      .Stages  (Stages)
  ) u_scale_output (
      .clk_i     (clk_i),
      .rst_ni    (rst_ni),
      .valid_i   (take),
      .advance_o (advance),
      .value_i   (gated_q),
      .mantissa_i(product_mantissa_q[10]),
      .shift_i   (product_shift_q[10]),
      .valid_o   (valid_o),
      .ready_i   (ready_i),
      .data_o    (data_o)
  );

endmodule

`default_nettype wire
