// st_embedding_gather: the token-embedding lookup. For every token id on the index stream it
// reads one row of an int8 embedding table from HBM through an AXI4 read master
// (st_axi_read_dma) and emits the row requantized to OutBits, bit-exact with
// st::numerics::embeddingGather (docs/numerics.md §6).
//
// Table layout (st::numerics::embeddingImage): row r at table_base_i + r * RowBytes,
// RowBytes = Dim rounded up to 64 bytes (one 512-bit HBM word), codes in order, padding zero.
// The row is read as RowBytes/64 contiguous words (one DMA job of one loop).
//
// Streams:
//   index  (index_valid_i/index_ready_o/index_data_i): token ids, u32, one per row; the id must
//          be below the table's row count (the compiler's tokenizer and argmax guarantee it).
//   out    (valid_o/ready_i/data_o): per id, Dim/Lanes tokens of Lanes s<OutBits> codes
//          (element i of a token at bits [i*OutBits +: OutBits], element 0 of the row first).
// Sideband, sampled with every accepted id: table_base_i (byte address, 64-byte aligned) and
// the per-tensor output multiplier mult_mantissa_i (24 bits) / mult_shift_i (0 .. 63):
//   y_i = sat(round(code_i * M / 2^shift)), round half away from zero.
// The scale is per tensor: it is s_table / s_out, with Gemma's sqrt(hidden) folded in
// (st::numerics::embeddingScale). error_o is sticky: some read came back with a non-OKAY
// response since reset (the data is still emitted).
//
// Structure: an id starts one DMA job when the DMA is idle (so rows do not overlap in memory
// time: one row's read latency is exposed per id); the returned 512-bit words go to a one-word
// unpacker that hands out Lanes codes per cycle (64/Lanes tokens per word, fewer in the row's
// last word), then a 5-stage requantizer per lane (s1 select, s2 code * M, s3-s5 rounding
// shift and saturation, st_round_shift pipelined) and st_skid_buffer. The requantizer advances as one (stalls only when the
// output slice is full). Timing: compiler/model/embedding_model.h.
`default_nettype none

module st_embedding_gather #(
    /// Codes per row (hidden size), a multiple of Lanes.
    parameter int unsigned Dim = 128,
    /// Codes per output token; divides 64 and Dim.
    parameter int unsigned Lanes = 8,
    /// Output code width (2 .. 32), signed, saturated.
    parameter int unsigned OutBits = 16,
    /// AXI address width in bits (12 .. 64).
    parameter int unsigned AddrWidth = 64,
    /// AXI ID width in bits (>= 1); every burst uses ID 0.
    parameter int unsigned IdWidth = 1,
    /// Longest read burst in beats (1 .. 64: at most 4 KB).
    parameter int unsigned MaxBurstLen = 64,
    /// Read bursts in flight at most (>= 1).
    parameter int unsigned MaxOutstanding = 2
) (
    input  wire                         clk_i,
    input  wire                         rst_ni,          // synchronous, active low
    // token ids
    input  wire                         index_valid_i,
    output logic                        index_ready_o,
    input  wire  [                31:0] index_data_i,
    // sideband, sampled with every id
    input  wire  [       AddrWidth-1:0] table_base_i,
    input  wire  [                23:0] mult_mantissa_i,
    input  wire  [                 5:0] mult_shift_i,
    // embedding rows
    output logic                        valid_o,
    input  wire                         ready_i,
    output logic [   Lanes*OutBits-1:0] data_o,
    output logic                        error_o,         // sticky: a non-OKAY read response
    // AXI4 read address channel
    output logic [         IdWidth-1:0] m_axi_arid,
    output logic [       AddrWidth-1:0] m_axi_araddr,
    output logic [                 7:0] m_axi_arlen,
    output logic [                 2:0] m_axi_arsize,
    output logic [                 1:0] m_axi_arburst,
    output logic                        m_axi_arlock,
    output logic [                 3:0] m_axi_arcache,
    output logic [                 2:0] m_axi_arprot,
    output logic                        m_axi_arvalid,
    input  wire                         m_axi_arready,
    // AXI4 read data channel
    input  wire  [         IdWidth-1:0] m_axi_rid,
    input  wire  [               511:0] m_axi_rdata,
    input  wire  [                 1:0] m_axi_rresp,
    input  wire                         m_axi_rlast,
    input  wire                         m_axi_rvalid,
    output logic                        m_axi_rready
);

  if (Lanes < 1 || 64 % Lanes != 0 || Dim < 1 || Dim % Lanes != 0) begin : gen_bad_lanes
    $fatal(1, "st_embedding_gather: Lanes must divide 64 and Dim");
  end
  if (OutBits < 2 || OutBits > 32) begin : gen_bad_out_bits
    $fatal(1, "st_embedding_gather: OutBits must be 2 .. 32");
  end
  if (MaxBurstLen < 1 || MaxBurstLen > 64) begin : gen_bad_burst
    $fatal(1, "st_embedding_gather: MaxBurstLen must be 1 .. 64 (4 KB of 512-bit beats)");
  end

  localparam int unsigned WordBytes = 64;
  localparam int unsigned RowWords = (Dim + WordBytes - 1) / WordBytes;
  localparam int unsigned RowBytes = RowWords * WordBytes;
  localparam int unsigned TokensPerWord = WordBytes / Lanes;
  localparam int unsigned LastWordTokens = (Dim - (RowWords - 1) * WordBytes) / Lanes;
  localparam int unsigned TokWidth = (TokensPerWord > 1) ? $clog2(TokensPerWord) : 1;
  localparam int unsigned WordIdxWidth = (RowWords > 1) ? $clog2(RowWords) : 1;
  localparam int unsigned ProductBits = 8 + 25;  // s8 * unsigned 24-bit mantissa

  // ---- ids -> DMA jobs ---------------------------------------------------------------------
  logic dma_start_ready, dma_valid, dma_ready, dma_error;
  logic [511:0] dma_data;
  /* verilator lint_off UNUSEDSIGNAL */
  logic dma_done;
  /* verilator lint_on UNUSEDSIGNAL */
  assign index_ready_o = rst_ni && dma_start_ready;
  wire index_fire = index_valid_i && index_ready_o;
  wire [AddrWidth-1:0] row_addr =
      table_base_i + AddrWidth'(index_data_i) * AddrWidth'(RowBytes);

  st_axi_read_dma #(
      .NumLoops(1),
      .AddrWidth(AddrWidth),
      .DataWidth(512),
      .IdWidth(IdWidth),
      .MaxBurstLen(MaxBurstLen),
      .MaxOutstanding(MaxOutstanding)
  ) u_dma (
      .clk_i,
      .rst_ni,
      .start_valid_i(index_valid_i && rst_ni),
      .start_ready_o(dma_start_ready),
      .base_addr_i  (row_addr),
      .trip_counts_i(32'(RowWords)),
      .strides_i    (64'(WordBytes)),
      .done_o       (dma_done),
      .error_o      (dma_error),
      .hold_i       (1'b0),
      .valid_o      (dma_valid),
      .ready_i      (dma_ready),
      .data_o       (dma_data),
      .m_axi_arid,
      .m_axi_araddr,
      .m_axi_arlen,
      .m_axi_arsize,
      .m_axi_arburst,
      .m_axi_arlock,
      .m_axi_arcache,
      .m_axi_arprot,
      .m_axi_arvalid,
      .m_axi_arready,
      .m_axi_rid,
      .m_axi_rdata,
      .m_axi_rresp,
      .m_axi_rlast,
      .m_axi_rvalid,
      .m_axi_rready
  );

  // The multiplier of the row being read; each word takes it along (the DMA delivers every
  // word of a row before it accepts the next id).
  logic [23:0] row_mant_q, word_mant_q;
  logic [5:0] row_shift_q, word_shift_q;
  logic error_q;
  assign error_o = error_q;

  // ---- unpacker: one 512-bit word, Lanes codes per cycle --------------------------------------
  logic out_ready;  // the output slice can take a token: the requantizer advances
  wire adv = out_ready;
  logic word_valid_q, word_last_q;
  logic [511:0] word_q;
  logic [TokWidth-1:0] tok_q;
  logic [WordIdxWidth-1:0] take_idx_q;  // index within its row of the next word taken
  wire [TokWidth-1:0] tok_limit = word_last_q ? TokWidth'(LastWordTokens - 1)
                                              : TokWidth'(TokensPerWord - 1);
  wire emit = adv && word_valid_q;
  wire word_done = emit && tok_q == tok_limit;
  assign dma_ready = !word_valid_q || word_done;
  wire take = dma_valid && dma_ready;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      word_valid_q <= 1'b0;
      word_last_q <= 1'b0;
      tok_q <= '0;
      take_idx_q <= '0;
      error_q <= 1'b0;
      row_mant_q <= '0;
      row_shift_q <= '0;
      word_mant_q <= '0;
      word_shift_q <= '0;
    end else begin
      error_q <= error_q | dma_error;
      if (index_fire) begin
        row_mant_q <= mult_mantissa_i;
        row_shift_q <= mult_shift_i;
      end
      if (take) begin
        word_valid_q <= 1'b1;
        word_last_q <= take_idx_q == WordIdxWidth'(RowWords - 1);
        take_idx_q <= (take_idx_q == WordIdxWidth'(RowWords - 1)) ? '0 : take_idx_q + 1'b1;
        tok_q <= '0;
        word_mant_q <= row_mant_q;
        word_shift_q <= row_shift_q;
      end else if (word_done) begin
        word_valid_q <= 1'b0;
      end else if (emit) begin
        tok_q <= tok_q + 1'b1;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (take) word_q <= dma_data;
  end

  // ---- requantizer: s1 select, s2 product, s3-s5 rounding shift and saturation ---------------
  logic v1_q, v2_q, v3_q, v4_q, v5_q;
  logic [Lanes*8-1:0] codes1_q;
  logic [23:0] mant1_q;
  logic [5:0] shift1_q, shift2_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      v1_q <= 1'b0;
      v2_q <= 1'b0;
      v3_q <= 1'b0;
      v4_q <= 1'b0;
      v5_q <= 1'b0;
    end else if (adv) begin
      v1_q <= emit;
      v2_q <= v1_q;
      v3_q <= v2_q;
      v4_q <= v3_q;
      v5_q <= v4_q;
    end
  end
  always_ff @(posedge clk_i) begin
    if (adv) begin
      codes1_q <= word_q[tok_q*Lanes*8+:Lanes*8];
      mant1_q <= word_mant_q;
      shift1_q <= word_shift_q;
      shift2_q <= shift1_q;
    end
  end

  logic [Lanes*OutBits-1:0] y_d;
  for (genvar i = 0; i < Lanes; i++) begin : gen_lane
    logic signed [ProductBits-1:0] product2_q;
    always_ff @(posedge clk_i) begin
      if (adv) product2_q <= ProductBits'($signed(codes1_q[i*8+:8])) * $signed({1'b0, mant1_q});
    end
    st_round_shift #(
        .InWidth          (ProductBits),
        .OutWidth         (OutBits),
        .SymmetricRounding(1),
        .Pipelined        (1)
    ) u_round (
        .clk_i   (clk_i),
        .enable_i(adv),
        .value_i (product2_q),
        .shift_i (shift2_q),
        .value_o (y_d[i*OutBits+:OutBits])
    );
  end

  st_skid_buffer #(
      .Width(Lanes * OutBits)
  ) u_out_slice (
      .clk_i,
      .rst_ni,
      .valid_i(v5_q),
      .ready_o(out_ready),
      .data_i (y_d),
      .valid_o,
      .ready_i,
      .data_o
  );

endmodule

`default_nettype wire
