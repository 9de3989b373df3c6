// st_residual_add: element-wise residual add of two tensors with different scales into a third,
// bit-exact with st::numerics::residualAdd (docs/numerics.md §6):
//   y = sat_OutBits(round((a*ma*2^(s-sa) + b*mb*2^(s-sb)) / 2^s)),  s = max(sa, sb)
// (round = half away from zero; (ma, sa) and (mb, sb) are the FixedScales s_a/s_out, s_b/s_out).
// The aligned sum can be 100+ bits wide; the kernel never builds it. With P, sp the product and
// shift of the operand with the larger shift, Q, sq the other's, d = sp - sq, it uses the exact
// identities
//   neg = (P + Q*2^d < 0) = ((P >>> d) + Q < 0),  X = P - (neg and s > 0)
//   t   = sq == 0 ? floor((X + 2^(d-1)) / 2^d) : floor(X / 2^d)   (t = X for d = 0)
//   y   = floor((t + Q + 2^(sq-1)) / 2^sq)                        (y = t + Q for sq = 0)
// so every value stays within the products' width plus 3 bits.
//
// Streams: a_data_i carries Lanes signed ABits-bit codes per token, b_data_i Lanes signed BBits-
// bit codes (element i at bits [i*Bits +: Bits]); the two are joined element by element (a
// token pair is taken in one cycle; each ready depends on the other stream's valid and on room in
// the pipeline). data_o carries Lanes signed OutBits-bit codes. Stateless: a vector of N
// elements is ceil(N/Lanes) tokens on each input; padding lanes are computed and ignored. II = 1.
// The scales (ResidualAddScales) are inputs sampled with each token pair at its handshake.
//
// Pipeline (Depth = 10 with ideal streams): 1 operand order + products, 2 P >>> d, 3 sign of the
// sum, 4 X = P - sign, 5 alignment shift, 6 t + Q (the rounding as carry-in), 7-9 rounding shift +
// saturation (st_round_shift, pipelined), 10 output register slice (st_skid_buffer); stages 7-10
// and the valid bits are st_scale_output (without its multiply).
`default_nettype none

module st_residual_add #(
    /// Elements per token (>= 1).
    parameter int unsigned Lanes = 4,
    /// Signed code width of operand a (2 .. 32).
    parameter int unsigned ABits = 16,
    /// Signed code width of operand b (2 .. 32).
    parameter int unsigned BBits = 16,
    /// Signed output code width (2 .. 32).
    parameter int unsigned OutBits = 16
) (
    input  wire                      clk_i,
    input  wire                      rst_ni,      // synchronous, active low
    input  wire                      a_valid_i,
    output logic                     a_ready_o,
    input  wire  [  Lanes*ABits-1:0] a_data_i,
    input  wire                      b_valid_i,
    output logic                     b_ready_o,
    input  wire  [  Lanes*BBits-1:0] b_data_i,
    // ResidualAddScales, sampled with each token pair
    input  wire  [             23:0] a_mantissa_i,
    input  wire  [              5:0] a_shift_i,
    input  wire  [             23:0] b_mantissa_i,
    input  wire  [              5:0] b_shift_i,
    output logic                     valid_o,
    input  wire                      ready_i,
    output logic [Lanes*OutBits-1:0] data_o
);

  if (Lanes < 1) begin : gen_bad_lanes
    $fatal(1, "st_residual_add: Lanes must be >= 1");
  end
  if (ABits < 2 || ABits > 32 || BBits < 2 || BBits > 32 || OutBits < 2 || OutBits > 32)
  begin : gen_bad_bits
    $fatal(1, "st_residual_add: ABits, BBits and OutBits must be 2 .. 32");
  end

  localparam int unsigned CodeBits = (ABits > BBits) ? ABits : BBits;
  localparam int unsigned ProductBits = CodeBits + 25;  // signed code * unsigned 24-bit
  localparam int unsigned Stages = 9;                   // before the register slice

  // ---- control: join the two inputs ----------------------------------------------------------
  logic advance;  // all stages advance: the register slice can take a token this cycle
  wire take = a_valid_i && b_valid_i && advance;
  assign a_ready_o = advance && b_valid_i;
  assign b_ready_o = advance && a_valid_i;

  // ---- shift bookkeeping (shared by the lanes, travels with the token; not reset) ------------
  wire swap = b_shift_i > a_shift_i;  // b has the larger shift: it becomes P
  wire [23:0] p_mantissa = swap ? b_mantissa_i : a_mantissa_i;
  wire [23:0] q_mantissa = swap ? a_mantissa_i : b_mantissa_i;
  logic [5:0] distance_q[1:4];  // d = sp - sq
  logic [5:0] q_shift_q[1:6];  // sq
  logic rounds_q[1:3];  // s = max(sa, sb) > 0: the rounding subtracts the sign
  always_ff @(posedge clk_i) begin
    if (advance) begin
      distance_q[1] <= swap ? b_shift_i - a_shift_i : a_shift_i - b_shift_i;
      q_shift_q[1] <= swap ? a_shift_i : b_shift_i;
      rounds_q[1] <= (a_shift_i | b_shift_i) != 6'd0;
      for (int unsigned s = 2; s <= 4; s++) distance_q[s] <= distance_q[s-1];
      for (int unsigned s = 2; s <= 6; s++) q_shift_q[s] <= q_shift_q[s-1];
      for (int unsigned s = 2; s <= 3; s++) rounds_q[s] <= rounds_q[s-1];
    end
  end

  logic [Lanes*(ProductBits+3)-1:0] sums;  // stage 6: t + Q per lane

  for (genvar lane = 0; lane < Lanes; lane++) begin : gen_lane
    // stage 1: operand order and the two products
    wire signed [CodeBits-1:0] a_code = CodeBits'($signed(a_data_i[lane*ABits+:ABits]));
    wire signed [CodeBits-1:0] b_code = CodeBits'($signed(b_data_i[lane*BBits+:BBits]));
    wire signed [CodeBits-1:0] p_code = swap ? b_code : a_code;
    wire signed [CodeBits-1:0] q_code = swap ? a_code : b_code;
    logic signed [ProductBits-1:0] p_q, q1_q;
    always_ff @(posedge clk_i) begin
      if (advance) begin
        p_q <= ProductBits'(p_code) * $signed({1'b0, p_mantissa});
        q1_q <= ProductBits'(q_code) * $signed({1'b0, q_mantissa});
      end
    end

    // stage 2: P >>> d
    wire signed [ProductBits:0] p_wide = (ProductBits + 1)'(p_q);
    logic signed [ProductBits:0] p_shifted_q, p2_q, p3_q;
    logic signed [ProductBits-1:0] q_q[2:5];
    always_ff @(posedge clk_i) begin
      if (advance) begin
        p_shifted_q <= p_wide >>> distance_q[1];
        p2_q <= p_wide;
        q_q[2] <= q1_q;
      end
    end

    // stage 3: the sign of the aligned sum P + Q*2^d, = the sign of (P >>> d) + Q
    wire signed [ProductBits:0] sign_probe = p_shifted_q + (ProductBits + 1)'(q_q[2]);
    logic sign_q;
    always_ff @(posedge clk_i) begin
      if (advance) begin
        sign_q <= sign_probe[ProductBits];
        p3_q <= p2_q;
        q_q[3] <= q_q[2];
      end
    end

    // stage 4: X = P - (sign and s > 0)
    logic signed [ProductBits:0] x_q;
    always_ff @(posedge clk_i) begin
      if (advance) begin
        x_q <= p3_q - (ProductBits + 1)'(rounds_q[3] && sign_q);
        q_q[4] <= q_q[3];
      end
    end

    // stage 5: {X, 0} >>> d: X >>> d above, X's bit d - 1 (the round bit) in bit 0
    wire signed [ProductBits+1:0] x_doubled = {x_q, 1'b0};
    logic signed [ProductBits+1:0] x_shifted_q;
    always_ff @(posedge clk_i) begin
      if (advance) begin
        x_shifted_q <= x_doubled >>> distance_q[4];
        q_q[5] <= q_q[4];
      end
    end

    // stage 6: t + Q with t = floor(X / 2^d), rounded half up instead when sq = 0: for d >= 1,
    // (floor(X / 2^(d-1)) + 1) >> 1 = floor(X / 2^d) + bit d-1 of X (for d = 0 the bit is 0),
    // the carry-in of the one adder
    wire round_up = (q_shift_q[5] == 6'd0) && x_shifted_q[0];
    wire signed [ProductBits:0] t = x_shifted_q[ProductBits+1:1];
    logic [ProductBits+2:0] sum_q;
    always_ff @(posedge clk_i) begin
      if (advance)
        sum_q <= (ProductBits + 3)'(t) + (ProductBits + 3)'(q_q[5]) + (ProductBits + 3)'(round_up);
    end
    assign sums[lane*(ProductBits+3)+:ProductBits+3] = sum_q;
  end

  // ---- stages 7-9 y = floor((t + Q + 2^(sq-1)) / 2^sq), saturated; 10 register slice -------
  st_scale_output #(
      .Lanes            (Lanes),
      .InBits           (ProductBits + 3),
      .OutBits          (OutBits),
      .Multiply         (0),
      .SymmetricRounding(0),
      .Stages           (Stages)
  ) u_scale_output (
      .clk_i     (clk_i),
      .rst_ni    (rst_ni),
      .valid_i   (take),
      .advance_o (advance),
      .value_i   (sums),
      .mantissa_i(24'd0),
      .shift_i   (q_shift_q[6]),
      .valid_o   (valid_o),
      .ready_i   (ready_i),
      .data_o    (data_o)
  );

endmodule

`default_nettype wire
