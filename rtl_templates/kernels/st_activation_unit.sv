// st_activation_unit: GELU (erf or tanh form) or SiLU of a Q.11 value, bit-exact with
// st::numerics::geluFixed / siluFixed (docs/numerics.md §5):
//   a = |x|, h = a < span ? roundShiftRight(interpolate(T, a), 5) : 0,  y = relu(x) - h
// with T the residual table h(a) = a*Phi(-a), a*(1-T(a)) or a*sigmoid(-a) (u16 Q0.16, input
// Q.11 with 6 interpolation bits; span = 8.0 for GELU, 16.0 for SiLU). Input and output are
// signed 32-bit Q.11. A pipeline of Latency = 4 registers (the table offset, two in
// st_pwl_table, one for y) that advances only while enable_i is high; no valid bits (the caller
// keeps them).
`default_nettype none

module st_activation_unit #(
    /// 0: GELU, erf form; 1: GELU, tanh form; 2: SiLU. Selects the table size; TableFile must be
    /// the matching table.
    parameter int unsigned Function = 0,
    /// $readmemh file of the residual table: <build>/tables/gelu_erf_residual.mem,
    /// gelu_tanh_residual.mem or silu_residual.mem (target st_tables). Mandatory.
    parameter TableFile = ""
) (
    input  wire         clk_i,
    input  wire         enable_i,  // advance the pipeline
    input  wire  [31:0] x_i,       // signed Q.11
    output logic [31:0] y_o        // signed Q.11, Latency cycles later
);

  if (Function > 2) begin : gen_bad_function
    $fatal(1, "st_activation_unit: Function must be 0 (GELU erf), 1 (GELU tanh) or 2 (SiLU)");
  end

  // GELU: 256 segments over [0, 8); SiLU: 512 segments over [0, 16). Q.11 input, 6 fraction
  // bits per segment, so the span is a power of two: 2^14 or 2^15.
  localparam int unsigned Entries = (Function == 2) ? 513 : 257;
  localparam int unsigned SpanBits = (Function == 2) ? 15 : 14;  // span = 2^SpanBits
  localparam int unsigned OffsetBits = $clog2(Entries) + TableFracBits;  // SpanBits + 1
  localparam int unsigned TableFracBits = 6;
  // Entries are Q0.16, the result Q.11: drop 5 bits, rounded (the value is non-negative).
  localparam int unsigned DropBits = 16 - 11;

  // ---- stage 0: table offset = |x| when |x| < span ---------------------------------------------
  // |x| < 2^SpanBits: x >= 0 with its bits above SpanBits all zero, or x < 0 with them all ones
  // and x > -2^SpanBits (its low bits not all zero); |-2^31| = 2^31 is out of the table.
  wire [31-SpanBits:0] x_high = x_i[31:SpanBits];
  wire [SpanBits-1:0] x_low = x_i[SpanBits-1:0];
  wire in_table = x_i[31] ? ((&x_high) && (|x_low)) : !(|x_high);
  // The low SpanBits of |x|: of -x, for x < 0, they depend on x's low bits only.
  wire [SpanBits-1:0] magnitude_low = x_i[31] ? SpanBits'(-x_low) : x_low;
  // Out-of-table offsets are clamped to 0 (their h is 0 anyway).
  logic [SpanBits-1:0] offset_q;  // below 2^SpanBits, the table's last offset
  logic [31:0] x0_q;
  logic in_table0_q;
  always_ff @(posedge clk_i) begin
    if (enable_i) begin
      offset_q <= in_table ? magnitude_low : '0;
      x0_q <= x_i;
      in_table0_q <= in_table;
    end
  end

  /* verilator lint_off UNUSEDSIGNAL */
  logic [15:0] residual;  // interpolated h, Q0.16 (the bits below the rounding bit unused)
  /* verilator lint_on UNUSEDSIGNAL */
  st_pwl_table #(
      .Entries  (Entries),
      .EntryBits(16),
      .FracBits (TableFracBits),
      .TableFile(TableFile)
  ) u_table (
      .clk_i   (clk_i),
      .enable_i(enable_i),
      .offset_i(OffsetBits'(offset_q)),
      .value_o (residual)
  );

  // x and in_table travel beside the two table stages.
  logic [31:0] x1_q, relu2_q;  // x, then relu(x)
  logic in_table1_q, in_table2_q;
  always_ff @(posedge clk_i) begin
    if (enable_i) begin
      x1_q <= x0_q;
      in_table1_q <= in_table0_q;
      relu2_q <= x1_q[31] ? 32'd0 : x1_q;
      in_table2_q <= in_table1_q;
    end
  end

  // ---- stage 4: y = relu(x) - h ---------------------------------------------------------------
  // h = (T + 2^(DropBits-1)) >> DropBits: the kept bits of T plus its highest dropped one.
  // In the table relu < 2^SpanBits, so relu - h is exact in 17 bits; out of it h = 0.
  // relu - (b + c) for h = b + c (b the kept bits, c the rounding bit) is relu + ~b + !c: one
  // adder with a carry-in.
  wire [SpanBits-1:0] relu_low = relu2_q[SpanBits-1:0];
  wire [16:0] kept = 17'(residual[15:DropBits]);
  wire [16:0] in_table_y = 17'(relu_low) + ~kept + 17'(!residual[DropBits-1]);
  always_ff @(posedge clk_i) begin
    if (enable_i) y_o <= in_table2_q ? 32'($signed(in_table_y)) : relu2_q;
  end

endmodule

`default_nettype wire
