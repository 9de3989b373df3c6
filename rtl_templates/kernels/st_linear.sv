// st_linear: quantized GEMV y = W x + b for decode (batch 1), bit-exact with the golden
// `linear` of compiler/numerics/golden_ops.h (docs/numerics.md §3).
//
// Streams (one invocation = one x vector):
//   x  (x_valid_i/x_ready_o/x_data_i): the K input codes, Lanes per token (element i of a token
//      at bits [i*ABits +: ABits], element 0 of the vector in token 0), K/Lanes tokens. All of x
//      is written into an on-chip buffer (K/KLanes entries of KLanes codes) before the first
//      weight word is taken, because every row block reads it again.
//   w  (w_valid_i/w_ready_o/w_data_i): the weight stream of docs/weight-stream.md: for each
//      block of Rows output rows, HeaderWords header words (per row: bias, output multiplier
//      mantissa and shift) then K/KLanes weight words (Rows x KLanes codes plus, in group mode,
//      the Rows group-scale mantissas of the word's group). Blocks = NOut/Rows blocks.
//   y  (valid_o/ready_i/data_o): one token per row block, Rows output codes of OutBits each
//      (row block*Rows + i at bits [i*OutBits +: OutBits]), through a register slice.
// The output scales and bias are data in the weight stream, not parameters, because they differ
// per row; the widths, K, NOut and the group size are parameters.
//
// Datapath, one weight word per cycle (II = 1 per word, no bubbles between words or blocks):
//   s1  weight word register and x-buffer read (registered RAM output)
//   s2  Rows*KLanes products W*x, each a separate signed WBits x ABits multiplier registered
//       (int4 x int8 or int8 x int8/int16: one DSP48E2 multiplier each as Yosys maps them; two
//       int4 x int8 products per DSP48E2 is not done here)
//   s3  per row the KLanes products summed by an adder tree (exact)
//   s4  per row the word's dot product times the word's group mantissa (u16), or unchanged in
//       per-channel mode. Scaling per word instead of per group sum is the same integer
//       sum (docs/numerics.md §2: accumulation is exact and order-independent) and needs no
//       group counter.
//   s5  per row accumulator A (first word of a block loads, the others add)
//   r1  A + bias            r2  x output mantissa (u24)
//   r3  + rounding constant (half away from zero)          r4  arithmetic shift, saturate
//   (r1..r4 are st_requant_row, one per row, shared with st_gemv_engine)
//   then st_skid_buffer. The whole pipeline advances together (one enable): it stalls only when
//   the output register slice is full, and then the weight input stalls too.
// Timing (ideal sources, cycle 0 = first x handshake): x tokens at cycles 0..K/Lanes-1, block
// b's words at K/Lanes + b*B .. K/Lanes + (b+1)*B - 1 with B = HeaderWords + K/KLanes, its
// output handshake PipeDepth = 10 cycles after its last word (compiler/model/linear_model.h).
// The next invocation's x is taken from the cycle after the last weight word of this one.
`default_nettype none

module st_linear #(
    /// Reduction length (input vector length); a multiple of KLanes and of GroupSize.
    parameter int unsigned K = 128,
    /// Output rows; a multiple of Rows.
    parameter int unsigned NOut = 16,
    /// Output rows computed at once (one row block per output token).
    parameter int unsigned Rows = 4,
    /// K elements per row multiplied per cycle (weights per row per word); even, a multiple of
    /// Lanes, and a divisor of GroupSize in group mode.
    parameter int unsigned KLanes = 16,
    /// Activations per x token; divides KLanes.
    parameter int unsigned Lanes = 8,
    /// Weight code bits: 4 (int4, two per byte, low nibble first) or 8.
    parameter int unsigned WBits = 4,
    /// Activation code bits: 8 or 16.
    parameter int unsigned ABits = 8,
    /// Group size along K for the u16 group mantissas (32, 64, 128, ...); 0 = per output
    /// channel (no mantissas in the stream, the channel scale is in the output multiplier).
    parameter int unsigned GroupSize = 32,
    /// Output code bits (2..32), saturated.
    parameter int unsigned OutBits = 8,
    /// Weight stream word width; >= the payload Rows*KLanes*WBits (+ Rows*16 in group mode),
    /// the rest is zero padding (lets the word divide or be a multiple of the 512-bit HBM word).
    parameter int unsigned WordBits = 320
) (
    input  wire                       clk_i,
    input  wire                       rst_ni,     // synchronous, active low
    // input vector x
    input  wire                       x_valid_i,
    output logic                      x_ready_o,
    input  wire  [   Lanes*ABits-1:0] x_data_i,
    // weight stream
    input  wire                       w_valid_i,
    output logic                      w_ready_o,
    input  wire  [      WordBits-1:0] w_data_i,
    // output rows
    output logic                      valid_o,
    input  wire                       ready_i,
    output logic [Rows*OutBits-1:0]   data_o
);

  // ---- derived sizes ----------------------------------------------------------------------
  localparam int unsigned Grouped = GroupSize != 0 ? 1 : 0;
  localparam int unsigned WordsPerRow = K / KLanes;  // weight words per row block
  localparam int unsigned Blocks = NOut / Rows;
  localparam int unsigned XTokens = K / Lanes;
  localparam int unsigned TokensPerEntry = KLanes / Lanes;
  localparam int unsigned ScaleBits = 16;
  localparam int unsigned WeightFieldBits = Rows * KLanes * WBits;
  localparam int unsigned PayloadBits = WeightFieldBits + (Grouped != 0 ? Rows * ScaleBits : 0);
  // Header: per row bias s48 [0,48), mantissa u24 [48,72), shift u6 [72,78), zero [78,80).
  localparam int unsigned RowParamBits = 80;
  localparam int unsigned HeaderBits = Rows * RowParamBits;
  localparam int unsigned HeaderWords = (HeaderBits + WordBits - 1) / WordBits;
  localparam int unsigned BlockWords = HeaderWords + WordsPerRow;
  // Accumulator widths (docs/numerics.md §3): all exact, nothing saturates before the output.
  localparam int unsigned ProdBits = WBits + ABits;
  localparam int unsigned DotBits = ProdBits + $clog2(KLanes);
  localparam int unsigned ScaledBits = Grouped != 0 ? DotBits + ScaleBits : DotBits;
  localparam int unsigned SumBits = ScaledBits + $clog2(WordsPerRow);
  localparam int unsigned BiasBits = 48;
  localparam int unsigned MantBits = 24;
  localparam int unsigned ShiftBits = 6;
  // Counter widths (at least 1 bit).
  localparam int unsigned XAddrBits = WordsPerRow > 1 ? $clog2(WordsPerRow) : 1;
  localparam int unsigned XTokBits = XTokens > 1 ? $clog2(XTokens) : 1;
  localparam int unsigned XSubBits = TokensPerEntry > 1 ? $clog2(TokensPerEntry) : 1;
  localparam int unsigned PosBits = $clog2(BlockWords + 1);
  localparam int unsigned BlkBits = Blocks > 1 ? $clog2(Blocks) : 1;
  localparam int unsigned XEntryBits = KLanes * ABits;
  localparam int unsigned XBufBits = WordsPerRow * XEntryBits;
  // Read only by the ram_style attribute, which the Verilator lint does not see.
  /* verilator lint_off UNUSEDPARAM */
  localparam XRamStyle = XBufBits >= 16384 ? "block" : "distributed";
  /* verilator lint_on UNUSEDPARAM */

  // ---- parameter checks -------------------------------------------------------------------
  if (WBits != 4 && WBits != 8) begin : gen_bad_wbits
    $fatal(1, "st_linear: WBits must be 4 or 8");
  end
  if (ABits != 8 && ABits != 16) begin : gen_bad_abits
    $fatal(1, "st_linear: ABits must be 8 or 16");
  end
  if (OutBits < 2 || OutBits > 32) begin : gen_bad_outbits
    $fatal(1, "st_linear: OutBits must be in 2..32");
  end
  if (Rows < 1 || NOut % Rows != 0) begin : gen_bad_rows
    $fatal(1, "st_linear: NOut must be a positive multiple of Rows");
  end
  if (KLanes < 2 || KLanes % 2 != 0 || K % KLanes != 0) begin : gen_bad_klanes
    $fatal(1, "st_linear: KLanes must be even and divide K");
  end
  if (Lanes < 1 || KLanes % Lanes != 0) begin : gen_bad_lanes
    $fatal(1, "st_linear: Lanes must divide KLanes");
  end
  if (Grouped != 0 && (GroupSize % KLanes != 0 || K % GroupSize != 0)) begin : gen_bad_group
    $fatal(1, "st_linear: GroupSize must be a multiple of KLanes and divide K");
  end
  if (WordBits < PayloadBits) begin : gen_bad_word
    $fatal(1, "st_linear: WordBits is smaller than the weight word payload");
  end
  if (BlockWords < 5) begin : gen_bad_block
    // The output multiplier of a block is read from hdr_cur_q 5 cycles after its last word;
    // the next block's last word overwrites it BlockWords cycles after.
    $fatal(1, "st_linear: HeaderWords + K/KLanes must be >= 5");
  end

  // ---- pipeline enable ----------------------------------------------------------------------
  logic r4_valid_q, out_ready;
  wire  adv = !r4_valid_q || out_ready;

  // ---- x load ---------------------------------------------------------------------------------
  logic load_q;  // 1: taking x; 0: taking weights
  logic [XTokBits-1:0] x_tok_q;
  logic [XSubBits-1:0] x_sub_q;
  logic [XAddrBits-1:0] x_waddr_q;
  wire x_fire = x_valid_i && x_ready_o;
  wire x_entry_done = x_sub_q == XSubBits'(TokensPerEntry - 1);
  wire x_last = x_tok_q == XTokBits'(XTokens - 1);
  logic [XEntryBits-1:0] x_wdata;
  assign x_ready_o = load_q;

  if (TokensPerEntry > 1) begin : gen_x_assemble
    // Earlier tokens of the entry, first token in the low bits.
    logic [(TokensPerEntry-1)*Lanes*ABits-1:0] x_asm_q;
    if (TokensPerEntry > 2) begin : gen_shift
      always_ff @(posedge clk_i) begin
        if (x_fire) x_asm_q <= {x_data_i, x_asm_q[(TokensPerEntry-1)*Lanes*ABits-1:Lanes*ABits]};
      end
    end else begin : gen_one
      always_ff @(posedge clk_i) begin
        if (x_fire) x_asm_q <= x_data_i;
      end
    end
    assign x_wdata = {x_data_i, x_asm_q};
  end else begin : gen_x_direct
    assign x_wdata = x_data_i;
  end

  // ---- weight stream position ---------------------------------------------------------------
  logic [PosBits-1:0] pos_q;  // word within the block: < HeaderWords is header
  logic [BlkBits-1:0] blk_q;
  wire w_fire = w_valid_i && w_ready_o;
  wire is_header = pos_q < PosBits'(HeaderWords);
  wire block_last_word = pos_q == PosBits'(BlockWords - 1);
  wire block_first_word = pos_q == PosBits'(HeaderWords);
  wire invocation_done = block_last_word && blk_q == BlkBits'(Blocks - 1);
  /* verilator lint_off WIDTH */  // pos_q - HeaderWords fits XAddrBits for a weight word
  wire [XAddrBits-1:0] x_raddr = XAddrBits'(pos_q - PosBits'(HeaderWords));
  /* verilator lint_on WIDTH */
  assign w_ready_o = !load_q && adv;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      load_q <= 1'b1;
      x_tok_q <= '0;
      x_sub_q <= '0;
      x_waddr_q <= '0;
      pos_q <= '0;
      blk_q <= '0;
    end else begin
      if (x_fire) begin
        x_tok_q <= x_last ? '0 : x_tok_q + 1'b1;
        x_sub_q <= x_entry_done ? '0 : x_sub_q + 1'b1;
        if (x_entry_done) x_waddr_q <= x_last ? '0 : x_waddr_q + 1'b1;
        if (x_last) load_q <= 1'b0;
      end
      if (w_fire) begin
        pos_q <= block_last_word ? '0 : pos_q + 1'b1;
        if (block_last_word) blk_q <= invocation_done ? '0 : blk_q + 1'b1;
        if (invocation_done) load_q <= 1'b1;
      end
    end
  end

  // ---- x buffer: written while loading, read once per weight word -----------------------------
  (* ram_style = XRamStyle *) logic [XEntryBits-1:0] x_mem[WordsPerRow];
  logic [XEntryBits-1:0] x_q;  // s1
  always_ff @(posedge clk_i) begin
    if (x_fire && x_entry_done) x_mem[x_waddr_q] <= x_wdata;
    if (adv) x_q <= x_mem[x_raddr];
  end

  // ---- header: row parameters of the next block, then of the block in flight ----------------
  logic [HeaderBits-1:0] hdr_next_q, hdr_cur_q;
  if (HeaderWords == 1) begin : gen_hdr_one
    always_ff @(posedge clk_i) begin
      if (w_fire && is_header) hdr_next_q <= w_data_i[HeaderBits-1:0];
    end
  end else begin : gen_hdr_many
    // Header words shift in from the top; word 0 ends in the low bits.
    logic [HeaderWords*WordBits-1:0] hdr_sr_q;
    always_ff @(posedge clk_i) begin
      if (w_fire && is_header) hdr_sr_q <= {w_data_i, hdr_sr_q[HeaderWords*WordBits-1:WordBits]};
    end
    assign hdr_next_q = hdr_sr_q[HeaderBits-1:0];
    if (HeaderWords * WordBits > HeaderBits) begin : gen_hdr_pad
      wire unused_hdr_pad = ^hdr_sr_q[HeaderWords*WordBits-1:HeaderBits];
    end
  end
  always_ff @(posedge clk_i) begin
    if (w_fire && block_last_word) hdr_cur_q <= hdr_next_q;
  end

  // ---- pipeline control flags -----------------------------------------------------------------
  logic [WordBits-1:0] w_q;  // s1 word
  logic v1_q, v2_q, v3_q, v4_q, done5_q, r1_valid_q, r2_valid_q, r3_valid_q;
  logic first1_q, first2_q, first3_q, first4_q;
  logic last1_q, last2_q, last3_q, last4_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      v1_q <= 1'b0;
      v2_q <= 1'b0;
      v3_q <= 1'b0;
      v4_q <= 1'b0;
      done5_q <= 1'b0;
      r1_valid_q <= 1'b0;
      r2_valid_q <= 1'b0;
      r3_valid_q <= 1'b0;
      r4_valid_q <= 1'b0;
    end else if (adv) begin
      v1_q <= w_fire && !is_header;
      v2_q <= v1_q;
      v3_q <= v2_q;
      v4_q <= v3_q;
      done5_q <= v4_q && last4_q;
      r1_valid_q <= done5_q;
      r2_valid_q <= r1_valid_q;
      r3_valid_q <= r2_valid_q;
      r4_valid_q <= r3_valid_q;
    end
  end
  always_ff @(posedge clk_i) begin
    if (adv) begin
      w_q <= w_data_i;
      first1_q <= block_first_word;
      last1_q <= block_last_word;
      first2_q <= first1_q;
      last2_q <= last1_q;
      first3_q <= first2_q;
      last3_q <= last2_q;
      first4_q <= first3_q;
      last4_q <= last3_q;
    end
  end

  // ---- per-row datapath -------------------------------------------------------------------------
  logic [Rows*OutBits-1:0] y_d;
  for (genvar r = 0; r < Rows; r++) begin : gen_row
    // s2: products
    logic [KLanes*ProdBits-1:0] prods;
    for (genvar l = 0; l < KLanes; l++) begin : gen_lane
      wire signed [WBits-1:0] w_code = w_q[(r*KLanes+l)*WBits+:WBits];
      wire signed [ABits-1:0] x_code = x_q[l*ABits+:ABits];
      logic signed [ProdBits-1:0] prod_q;
      always_ff @(posedge clk_i) begin
        if (adv) prod_q <= ProdBits'(w_code) * ProdBits'(x_code);
      end
      assign prods[l*ProdBits+:ProdBits] = prod_q;
    end

    // s3: dot product of the word
    logic signed [DotBits-1:0] dot_d, dot_q;
    always_comb begin
      dot_d = '0;
      for (int l = 0; l < KLanes; l++) dot_d = dot_d + DotBits'($signed(prods[l*ProdBits+:ProdBits]));
    end

    // s4: scaled by the group mantissa (group mode); the mantissa rides with the word to s3
    logic signed [ScaledBits-1:0] scaled_q;
    if (Grouped != 0) begin : gen_scale
      logic [ScaleBits-1:0] m2_q, m3_q;
      always_ff @(posedge clk_i) begin
        if (adv) begin
          m2_q <= w_q[WeightFieldBits+r*ScaleBits+:ScaleBits];
          m3_q <= m2_q;
          dot_q <= dot_d;
          scaled_q <= ScaledBits'(dot_q) * ScaledBits'($signed({1'b0, m3_q}));
        end
      end
    end else begin : gen_no_scale
      always_ff @(posedge clk_i) begin
        if (adv) begin
          dot_q <= dot_d;
          scaled_q <= dot_q;
        end
      end
    end

    // s5: block accumulator
    logic signed [SumBits-1:0] acc_q;
    always_ff @(posedge clk_i) begin
      if (adv && v4_q) acc_q <= first4_q ? SumBits'(scaled_q) : acc_q + SumBits'(scaled_q);
    end

    // r1..r4: bias, output multiplier, rounding half away from zero, saturation
    st_requant_row #(
        .AccBits(SumBits),
        .OutBits(OutBits)
    ) u_requant (
        .clk_i,
        .en_i(adv),
        .acc_i(acc_q),
        .bias_i(hdr_cur_q[r*RowParamBits+:BiasBits]),
        .mantissa_i(hdr_cur_q[r*RowParamBits+BiasBits+:MantBits]),
        .shift_i(hdr_cur_q[r*RowParamBits+BiasBits+MantBits+:ShiftBits]),
        .out_bits_i(6'(OutBits)),
        .y_o(y_d[r*OutBits+:OutBits])
    );
    wire [RowParamBits-BiasBits-MantBits-ShiftBits-1:0] unused_pad =
        hdr_cur_q[r*RowParamBits+BiasBits+MantBits+ShiftBits+:RowParamBits-BiasBits-MantBits-ShiftBits];
  end

  // ---- output register slice --------------------------------------------------------------------
  st_skid_buffer #(
      .Width(Rows * OutBits)
  ) u_out_slice (
      .clk_i,
      .rst_ni,
      .valid_i(r4_valid_q),
      .ready_o(out_ready),
      .data_i (y_d),
      .valid_o,
      .ready_i,
      .data_o
  );

  if (WordBits > PayloadBits) begin : gen_word_pad
    wire unused_word_pad = ^w_q[WordBits-1:PayloadBits];
  end

`ifndef SYNTHESIS
  // x is never taken while weights stream, and the last weight word never precedes x.
  always_ff @(posedge clk_i) begin
    if (rst_ni && w_fire) assert (!load_q);
    if (rst_ni && x_fire) assert (load_q);
  end
`endif

endmodule

`default_nettype wire
