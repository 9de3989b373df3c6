// st_rsqrt_unit: pipelined reciprocal square root of an unsigned integer, bit-exact with
// st::numerics::rsqrt (docs/numerics.md §5).
//
// For x >= 1 (x = 0 is taken as 1): L = leading-one position, k = floor(L/2),
// m = x / 4^k in [1, 4] with 16 fraction bits (rounded half up when bits are dropped), offset =
// m - 1 (Q2.16), then the 385-entry table 1/sqrt(m) (u18 Q1.17, 9 interpolation bits):
//   i = offset >> 9, r = offset mod 2^9, R = T[i] + roundShiftRight((T[i+1] - T[i]) * r, 9)
// (round half away from zero). 1/sqrt(x) = R * 2^-(17 + k).
//
// Fully pipelined, no backpressure: a value presented with valid_i in cycle c appears with
// valid_o in cycle c + 5 (Latency). m is formed without an adder as wide as x: t = x * 2^17 >>
// 2k holds m's truncation above its lowest bit and the rounding bit in it, so m = (t >> 1) +
// t[0]; t (20 bits) is registered, the offset m - 1 is the next stage. The ROM reads T[i] and T[i+1] through two read ports of one
// array (a dual-port ROM); it is loaded from TableFile with $readmemh.
`default_nettype none

module st_rsqrt_unit #(
    /// Width of the unsigned input x (2 .. 64).
    parameter int unsigned InWidth = 64,
    /// Width of the tag carried beside each value (>= 1), e.g. a buffer bank.
    parameter int unsigned TagWidth = 1,
    /// $readmemh file of the rsqrt table (385 entries, u18 Q1.17): <build>/tables/rsqrt.mem,
    /// written by the st_tables target. Mandatory.
    parameter TableFile = ""
) (
    input  wire                 clk_i,
    input  wire                 rst_ni,      // synchronous, active low
    input  wire                 valid_i,
    input  wire  [ InWidth-1:0] x_i,
    input  wire  [TagWidth-1:0] tag_i,
    output logic                valid_o,
    output logic [        17:0] mantissa_o,  // R, unsigned Q1.17 in [2^16, 2^17]
    output logic [         5:0] exponent_o,  // k
    output logic [TagWidth-1:0] tag_o
);

  if (InWidth < 2 || InWidth > 64) begin : gen_bad_width
    $fatal(1, "st_rsqrt_unit: InWidth must be 2 .. 64");
  end
  if (TagWidth < 1) begin : gen_bad_tag
    $fatal(1, "st_rsqrt_unit: TagWidth must be >= 1");
  end

  localparam int unsigned Entries = 385;
  localparam int unsigned FracBits = 9;  // interpolation bits of the table input
  // Wide enough for x + the rounding constant and for x shifted left by up to 16.
  localparam int unsigned WideWidth = InWidth + 18;

  // The table (not reset; a ROM).
  logic [17:0] table_q[Entries];
  // Guarded so that a tool elaborating the default parameters (Yosys without -defer) passes.
  if (TableFile != "") begin : gen_load_table
    initial $readmemh(TableFile, table_q);
  end

  // ---- stage 1: leading-one detect, k = floor(L/2) -----------------------------------------
  wire [InWidth-1:0] x_nonzero = (x_i == '0) ? InWidth'(1) : x_i;
  // Only lead[5:1] (k = floor(L/2)) is used.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [5:0] lead;
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    lead = '0;
    for (int unsigned i = 0; i < InWidth; i++) begin
      if (x_nonzero[i]) lead = 6'(i);
    end
  end

  logic s1_valid_q, s2_valid_q, s3_valid_q;
  logic [InWidth-1:0] s1_x_q;
  logic [5:0] s1_k_q, s2_k_q, s3_k_q;
  logic [TagWidth-1:0] s1_tag_q, s2_tag_q, s3_tag_q;

  // ---- stage 2: t = x * 2^17 / 4^k, truncated ------------------------------------------------
  // For 2k > 16, t >> 1 = floor(x / 2^(2k-16)) and t[0] is x's bit 2k - 17, so (t >> 1) + t[0]
  // is x / 2^(2k-16) rounded half up; for 2k <= 16, t = x * 2^(17-2k) exactly and t[0] = 0.
  wire [6:0] twice_k = {s1_k_q, 1'b0};
  /* verilator lint_off UNUSEDSIGNAL */
  wire [WideWidth-1:0] scaled = WideWidth'({s1_x_q, 17'd0}) >> twice_k;  // t fits 20 bits
  /* verilator lint_on UNUSEDSIGNAL */
  logic [19:0] s2_t_q;
  logic s2a_valid_q;
  logic [5:0] s2a_k_q;
  logic [TagWidth-1:0] s2a_tag_q;

  // ---- stage 3: m = x / 4^k with 16 fraction bits, offset = m - 1 -------------------------
  // m is in [2^16, 2^18], so the offset is in [0, 3 * 2^16] and fits 18 bits.
  wire [17:0] offset = 18'(s2_t_q[19:1]) + 18'(s2_t_q[0]) - 18'(1 << 16);
  logic [17:0] s2_offset_q;

  // ---- stage 4: table reads T[i], T[i+1] ----------------------------------------------------
  wire [8:0] index = s2_offset_q[17:FracBits];
  wire [8:0] next_index = (index == 9'(Entries - 1)) ? index : index + 9'd1;
  logic [17:0] s3_left_q, s3_right_q;
  logic [FracBits-1:0] s3_fraction_q;

  // ---- stage 5: interpolation ----------------------------------------------------------------
  wire signed [18:0] slope = $signed({1'b0, s3_right_q}) - $signed({1'b0, s3_left_q});
  wire signed [28:0] slope_times_r = 29'(slope) * $signed({20'd0, s3_fraction_q});
  // Round half away from zero: add 2^8 - sign, shift arithmetically.
  wire signed [28:0] rounded =
      (slope_times_r + 29'sd256 - $signed(29'(slope_times_r < 0))) >>> FracBits;
  wire [17:0] interpolated = 18'($signed({11'd0, s3_left_q}) + rounded);

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
      s2a_valid_q <= 1'b0;
      s2_valid_q <= 1'b0;
      s3_valid_q <= 1'b0;
      valid_o <= 1'b0;
    end else begin
      s1_valid_q <= valid_i;
      s2a_valid_q <= s1_valid_q;
      s2_valid_q <= s2a_valid_q;
      s3_valid_q <= s2_valid_q;
      valid_o <= s3_valid_q;
    end
  end

  // Payload registers (not reset).
  always_ff @(posedge clk_i) begin
    s1_x_q <= x_nonzero;
    s1_k_q <= {1'b0, lead[5:1]};
    s1_tag_q <= tag_i;
    s2_t_q <= 20'(scaled);
    s2a_k_q <= s1_k_q;
    s2a_tag_q <= s1_tag_q;
    s2_offset_q <= offset;
    s2_k_q <= s2a_k_q;
    s2_tag_q <= s2a_tag_q;
    s3_left_q <= table_q[index];
    s3_right_q <= table_q[next_index];
    s3_fraction_q <= s2_offset_q[FracBits-1:0];
    s3_k_q <= s2_k_q;
    s3_tag_q <= s2_tag_q;
    mantissa_o <= interpolated;
    exponent_o <= s3_k_q;
    tag_o <= s3_tag_q;
  end

`ifndef SYNTHESIS
  // The offset never passes the table's end point (m <= 4).
  always_ff @(posedge clk_i) begin
    if (rst_ni && s2_valid_q) assert (s2_offset_q <= 18'(3 << 16));
  end
`endif

endmodule

`default_nettype wire
