// st_pwl_table: piecewise-linear table lookup with integer interpolation, bit-exact with
// st::numerics::interpolate (docs/numerics.md §5). Shared by every kernel that evaluates a
// non-linear function from one of the fixed tables (<build>/tables/*.mem, target st_tables).
//
// Interface: an unsigned offset from the table's domain start, $clog2(Entries) + FracBits bits
// wide, offset_i <= (Entries - 1) * 2^FracBits (the "input span"; callers clamp it in every
// enabled cycle, also cycles without a valid token), with i = offset >> FracBits, r = offset mod 2^FracBits:
//   value_o = T[i] + roundShiftRight((T[i+1] - T[i]) * r, FracBits)   (half away from zero)
// and value_o = T[Entries-1] at offset == span. The result is unsigned, EntryBits wide, with the
// table's fraction bits. Latency 2 (Latency below): stage 1 reads T[i] and T[i+1] through two
// read ports of one ROM (registered outputs, so it maps to a dual-port BRAM or LUTRAM), stage 2
// interpolates into an output register. Every register advances only while enable_i is high, so
// the unit sits inside a stallable pipeline. The ROM is loaded from TableFile by $readmemh and
// is not reset.
`default_nettype none

module st_pwl_table #(
    /// Number of entries, segments + 1 (>= 2).
    parameter int unsigned Entries = 257,
    /// Storage width of one unsigned entry (1 .. 31).
    parameter int unsigned EntryBits = 16,
    /// Interpolation bits: the low FracBits bits of the offset (1 .. 24).
    parameter int unsigned FracBits = 6,
    /// $readmemh file with Entries entries (e.g. <build>/tables/silu_residual.mem). Mandatory.
    parameter TableFile = ""
) (
    input  wire                                           clk_i,
    input  wire                                           enable_i,  // advance the pipeline
    input  wire  [$clog2(Entries) + FracBits - 1 : 0] offset_i,
    output logic [                       EntryBits - 1:0] value_o
);

  if (Entries < 2) begin : gen_bad_entries
    $fatal(1, "st_pwl_table: Entries must be >= 2");
  end
  if (EntryBits < 1 || EntryBits > 31) begin : gen_bad_entry_bits
    $fatal(1, "st_pwl_table: EntryBits must be 1 .. 31");
  end
  if (FracBits < 1 || FracBits > 24) begin : gen_bad_frac_bits
    $fatal(1, "st_pwl_table: FracBits must be 1 .. 24");
  end

  localparam int unsigned IndexBits = $clog2(Entries);
  localparam int unsigned OffsetBits = IndexBits + FracBits;
  localparam int unsigned SlopeBits = EntryBits + 1;
  localparam int unsigned ProductBits = SlopeBits + FracBits + 1;

  (* rom_style = "block" *) logic [EntryBits-1:0] rom[Entries];
  // Guarded so that tools elaborating the module at its default parameters (Yosys reads every
  // module once that way) accept it; an instance always names its table.
  initial if (TableFile != "") $readmemh(TableFile, rom);

  // ---- stage 1: two ROM reads ----------------------------------------------------------------
  wire [IndexBits-1:0] index = IndexBits'(offset_i >> FracBits);
  wire [IndexBits-1:0] next_index = (index == IndexBits'(Entries - 1)) ? index : index + 1'b1;
  wire [FracBits-1:0] fraction = offset_i[FracBits-1:0];
  logic [EntryBits-1:0] left_q, right_q;
  logic [FracBits-1:0] fraction_q;

  always_ff @(posedge clk_i) begin
    if (enable_i) begin
      left_q <= rom[index];
      right_q <= rom[next_index];
      fraction_q <= fraction;
    end
  end

  // ---- stage 2: interpolation ----------------------------------------------------------------
  wire signed [SlopeBits-1:0] slope = $signed({1'b0, right_q}) - $signed({1'b0, left_q});
  wire signed [ProductBits-1:0] product =
      ProductBits'(slope) * $signed({{(ProductBits - FracBits) {1'b0}}, fraction_q});
  // round(product / 2^FracBits), half away from zero, = (product >>> FracBits) + inc with inc the
  // highest dropped bit, for a negative product only when a lower dropped bit is set: the
  // rounding is the carry-in of the one adder. |round(product / 2^FracBits)| <= |slope|: only
  // its low SlopeBits bits are used.
  wire negative = product[ProductBits-1];
  wire round_bit = product[FracBits-1];
  wire sticky = (FracBits > 1) ? (|product[(FracBits > 1 ? FracBits - 2 : 0):0]) : 1'b0;
  wire increment = round_bit && (!negative || sticky);
  /* verilator lint_off UNUSEDSIGNAL */
  wire signed [ProductBits-1:0] quotient = product >>> FracBits;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [EntryBits-1:0] interpolated =
      EntryBits'($signed({1'b0, left_q}) + SlopeBits'(quotient) + SlopeBits'(increment));

  always_ff @(posedge clk_i) begin
    if (enable_i) value_o <= interpolated;
  end

`ifndef SYNTHESIS
  // The offset never passes the table's end point.
  always_ff @(posedge clk_i) begin
    if (enable_i) assert (offset_i <= OffsetBits'((Entries - 1) << FracBits));
  end
`endif

endmodule

`default_nettype wire
