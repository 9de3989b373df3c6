// st_scale_output: the output end of the element-wise kernels (st_activation,
// st_gated_activation, st_requantize, st_residual_add): per lane the FixedScale applied to a
// signed value, then the token leaves through the output register slice,
//   y = sat_OutBits(round(x * mantissa / 2^shift))       Multiply = 1
//   y = sat_OutBits(round(x / 2^shift))                  Multiply = 0
// (st_round_shift: round half away from zero, or half up with SymmetricRounding = 0). It also
// keeps the valid bit of every pipeline stage of the kernel: all Stages registers before the
// slice advance together on advance_o, the slice's registered ready, so a stall costs no
// throughput and the kernel's input ready is a flop output.
//
// Stages of the kernel that are registers here: with Multiply = 1, the partial products (x in
// 17-bit chunks, each times the mantissa, one DSP48E2 each), for more than two chunks (InBits >
// 34) their sums in pairs and the low half of the pairs' sum, then their sum, the product
// x * mantissa, exact in InBits + 25 bits (stages Stages - 4 and Stages - 3, or Stages - 6 ..
// Stages - 3); then stages Stages - 2 ..
// Stages, the three registers of st_round_shift (Pipelined: shift, increment, saturation into the
// result register). Then the register slice
// (st_skid_buffer). value_i, mantissa_i and shift_i belong to the token in the stage before
// (stage 0 is the input handshake); valid_i is the kernel's input token, taken into stage 1.
// Lanes are packed as the kernels' streams: lane i at bits [i*Bits +: Bits].
`default_nettype none

module st_scale_output #(
    /// Elements per token (>= 1).
    parameter int unsigned Lanes = 4,
    /// Width of each signed lane value (>= 2).
    parameter int unsigned InBits = 32,
    /// Signed output code width (2 .. 32).
    parameter int unsigned OutBits = 8,
    /// 1: multiply by mantissa_i in a stage of its own before the rounding; 0: round only.
    parameter int unsigned Multiply = 1,
    /// 1: round half away from zero; 0: round half up.
    parameter int unsigned SymmetricRounding = 1,
    /// Registers of the kernel before the output slice, the ones here included (>= 3 + 2*Multiply).
    parameter int unsigned Stages = 5
) (
    input  wire                      clk_i,
    input  wire                      rst_ni,      // synchronous, active low
    input  wire                      valid_i,     // a token enters stage 1 (when advance_o)
    output logic                     advance_o,   // every stage of the kernel advances
    input  wire  [ Lanes*InBits-1:0] value_i,     // signed lane values
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire  [             23:0] mantissa_i,  // u24; unused when Multiply = 0
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire  [              5:0] shift_i,
    output logic                     valid_o,
    input  wire                      ready_i,
    output logic [Lanes*OutBits-1:0] data_o
);

  if (Lanes < 1) begin : gen_bad_lanes
    $fatal(1, "st_scale_output: Lanes must be >= 1");
  end
  if (InBits < 2 || OutBits < 2 || OutBits > 32) begin : gen_bad_bits
    $fatal(1, "st_scale_output: InBits must be >= 2 and OutBits 2 .. 32");
  end
  if (Multiply > 1 || Stages < 3 + 2 * Multiply) begin : gen_bad_stages
    $fatal(1, "st_scale_output: Multiply must be 0 or 1 and Stages >= 3 + 2 * Multiply");
  end

  localparam int unsigned ProductBits = InBits + 25;  // signed value * unsigned 24-bit
  localparam int unsigned RoundBits = (Multiply != 0) ? ProductBits : InBits;

  // ---- control: one valid bit per stage, all stages advance together -------------------------
  logic advance;  // the register slice can take a token this cycle
  logic [Stages-1:0] valid_q;
  assign advance_o = advance;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) valid_q <= '0;
    else if (advance) valid_q <= {valid_q[Stages-2:0], valid_i};
  end

  // ---- the values to round, and their shift ---------------------------------------------------
  logic [Lanes*RoundBits-1:0] round_value;
  logic [5:0] round_shift;

  if (Multiply != 0) begin : gen_multiply
    // x in chunks of 17 bits, the low ones unsigned, the top one signed (a DSP48E2's B port)
    localparam int unsigned Chunks = (InBits + 16) / 17;
    localparam int unsigned SumStages = (InBits + 16) / 17 > 2 ? 3 : 1;
    localparam int unsigned PartialBits = 17 + 25;  // a chunk (as signed) * unsigned 24-bit
    // Up to two chunks: one adder; three or four: chunks summed in pairs, then the two pairs in
    // two halves, the low one's carry registered between them.
    localparam int unsigned Pairs = (Chunks + 1) / 2;
    localparam int unsigned PairBits = 17 + PartialBits;
    logic [5:0] shift_q[SumStages+1];  // travel with their token (not reset)
    always_ff @(posedge clk_i) begin
      if (advance) begin
        shift_q[0] <= shift_i;
        for (int unsigned s = 1; s <= SumStages; s++) shift_q[s] <= shift_q[s-1];
      end
    end
    assign round_shift = shift_q[SumStages];

    for (genvar lane = 0; lane < Lanes; lane++) begin : gen_lane
      wire [InBits-1:0] value = value_i[lane*InBits+:InBits];
      // stage 1: the partial products chunk * mantissa
      logic signed [PartialBits-1:0] partial_q[Chunks];
      for (genvar c = 0; c < Chunks; c++) begin : gen_chunk
        logic signed [17:0] chunk;
        if (c == Chunks - 1) begin : gen_top
          assign chunk = 18'($signed(value[InBits-1:17*c]));
        end else begin : gen_low
          assign chunk = {1'b0, value[17*c+:17]};
        end
        always_ff @(posedge clk_i) begin
          if (advance) partial_q[c] <= PartialBits'(chunk) * $signed({1'b0, mantissa_i});
        end
      end
      // stages 2 .. 1 + SumStages: their sum, value * mantissa
      logic signed [ProductBits-1:0] product;
      logic signed [ProductBits-1:0] product_q;
      if (SumStages == 1) begin : gen_sum
        always_comb begin
          product = '0;
          for (int unsigned c = 0; c < Chunks; c++)
            product = product + (ProductBits'(partial_q[c]) <<< (17 * c));
        end
      end else begin : gen_pair_sum
        logic signed [PairBits-1:0] pair_q[Pairs];
        for (genvar p = 0; p < Pairs; p++) begin : gen_pair
          always_ff @(posedge clk_i) begin
            if (advance) begin
              if (2 * p + 1 < Chunks)
                pair_q[p] <= PairBits'(partial_q[2*p]) +
                             (PairBits'(partial_q[(2*p+1)%Chunks]) <<< 17);
              else pair_q[p] <= PairBits'(partial_q[2*p]);
            end
          end
        end
        // pair0 + pair1 * 2^34 in two halves: the bits below LowBits with their carry, then
        // floor(pair0 / 2^LowBits) + floor(pair1 / 2^(LowBits-34)) + carry above them
        localparam int unsigned LowBits = 34 + (ProductBits - 33) / 2;
        localparam int unsigned HighBits = ProductBits - LowBits;
        /* verilator lint_off UNUSEDSIGNAL */
        wire [LowBits-1:0] pair0_low = LowBits'(pair_q[0]);
        wire [LowBits-35:0] pair1_low = (LowBits - 34)'(pair_q[1]);
        wire signed [PairBits-1:0] pair0_high = pair_q[0] >>> LowBits;
        wire signed [PairBits-1:0] pair1_high = pair_q[1] >>> (LowBits - 34);
        /* verilator lint_on UNUSEDSIGNAL */
        wire [LowBits:0] low_sum = (LowBits + 1)'(pair0_low) + (LowBits + 1)'({pair1_low, 34'd0});
        logic [LowBits-1:0] low_q;
        logic carry_q;
        logic [HighBits-1:0] pair0_high_q, pair1_high_q;
        always_ff @(posedge clk_i) begin
          if (advance) begin
            low_q <= low_sum[LowBits-1:0];
            carry_q <= low_sum[LowBits];
            pair0_high_q <= HighBits'(pair0_high);
            pair1_high_q <= HighBits'(pair1_high);
          end
        end
        wire [HighBits-1:0] high = pair0_high_q + pair1_high_q + HighBits'(carry_q);
        assign product = {high, low_q};
      end
      always_ff @(posedge clk_i) begin
        if (advance) product_q <= product;
      end
      assign round_value[lane*RoundBits+:RoundBits] = product_q;
    end
  end else begin : gen_no_multiply
    assign round_value = value_i;
    assign round_shift = shift_i;
  end

  // ---- rounding shift, then increment and saturation into the result register ----------------
  logic [Lanes*OutBits-1:0] result_q;

  for (genvar lane = 0; lane < Lanes; lane++) begin : gen_lane
    st_round_shift #(
        .InWidth          (RoundBits),
        .OutWidth         (OutBits),
        .SymmetricRounding(SymmetricRounding),
        .Pipelined        (1)
    ) u_to_code (
        .clk_i   (clk_i),
        .enable_i(advance),
        .value_i (round_value[lane*RoundBits+:RoundBits]),
        .shift_i (round_shift),
        .value_o (result_q[lane*OutBits+:OutBits])
    );
  end

  // ---- output register slice ------------------------------------------------------------------
  st_skid_buffer #(
      .Width(Lanes * OutBits)
  ) u_output_slice (
      .clk_i  (clk_i),
      .rst_ni (rst_ni),
      .valid_i(valid_q[Stages-1]),
      .ready_o(advance),
      .data_i (result_q),
      .valid_o(valid_o),
      .ready_i(ready_i),
      .data_o (data_o)
  );

endmodule

`default_nettype wire
