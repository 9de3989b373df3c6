// st_gemv_engine: the GEMV engine shared by every linear of a layer and the LM head, fed by
// Channels weight streams at once (one per HBM pseudo-channel), bit-exact with the golden
// `numerics::linear` (docs/numerics.md §3). The streams, their words and the ports are the
// contract of docs/gemv-engine.md; compiler/numerics/gemv_stream builds the streams and
// compiler/model/gemv_engine_model gives the exact timing.
//
// Per invocation every channel streams D (descriptor), then per block of Channels rows the row
// records (P, every sixth block), mantissa chunks (S) and weight words (W). The engine takes one
// word from every channel in the same cycle (a super-word) or none, so one FSM serves all:
//   D    K, B, N, out bits, group size, x port, reuse x, y port, and the next invocation's x
//        (port and K) when this one announces it (channel 0's copy is read)
//   x    unless reuse: K/Lanes tokens from the x port into an x buffer (K/KLanes entries)
// The x loader fills one of two x buffers while the running invocation reads the other: an
// invocation's D may announce the next invocation's x, which the loader then takes from the
// cycle after this invocation's own x is complete, beside the super-words (the next D then waits
// only for the tokens still missing). An x that was not announced loads after its D, as the
// only thing happening.
//   P/S/W  super-words; channel c computes row b*Channels + c of block b (st_gemv_channel)
// Pipeline of a W super-word (W fire = cycle F; stages advance together on `adv`):
//   R1 word, x entry, mantissas   R2 products   R3 segment sums   R4 x mantissa
//   R5 row accumulators (the block's last word: complete in cycle F+5)
//   F+5 hand-off: accumulators and row records into the output buffer (hold), which emits the
//       block's min(C, N - b*C)/Lanes tokens of Lanes rows, one per cycle, while the next
//       block accumulates
//   r1..r4 per lane st_requant_row (bias, mantissa, rounding, saturation to the invocation's
//       out bits, sign-extended to OutBits), then the output register slice (st_skid_buffer)
//       and the y port of the block's descriptor. Token t of a block: F + 11 + t.
// Stalls: the last W word of a block waits until the previous block's tokens will have left
// the output buffer by its hand-off (its n tokens: >= n cycles after the previous block's last
// W), so with a ready y the pipeline never stops; when y back-pressures, the pipeline and the
// P/S/W words stop while a finished block waits for the output buffer (`adv` low). D and the x
// load never wait for `adv`: the next invocation's x loads while the last outputs drain.
// Row records stay in one of three P slots per channel until their block's hand-off: a slot is
// refilled at least 5 advancing cycles after its last block's last word (two P words and two W
// words come between), which is when that block hands off.
`default_nettype none

module st_gemv_engine #(
    /// Weight streams (HBM pseudo-channels); the rows of a block, one per channel.
    parameter int unsigned Channels = 32,
    /// Codes of one row per weight word: a power of two, KLanes * WBits <= 512.
    parameter int unsigned KLanes = 16,
    /// Codes summed exactly before one group mantissa multiply: a power of two dividing KLanes,
    /// at most 32 segments per word. Group sizes are multiples of it.
    parameter int unsigned SegLanes = 16,
    /// Codes per x and y token: divides Channels and KLanes.
    parameter int unsigned Lanes = 2,
    /// Weight code bits: 4 or 8.
    parameter int unsigned WBits = 4,
    /// Activation (x) code bits: 8 or 16.
    parameter int unsigned ABits = 8,
    /// Longest K of an invocation: a multiple of KLanes (the x buffer holds MaxK codes).
    parameter int unsigned MaxK = 128,
    /// Width of the y codes (2 .. 32): the widest invocation's out bits.
    parameter int unsigned OutBits = 16,
    /// x ports (1 .. 256): the descriptor names the one to load x from.
    parameter int unsigned NumX = 1,
    /// y ports (1 .. 256): the descriptor names the one the outputs go to.
    parameter int unsigned NumY = 1,
    /// Channel pairs (2i, 2i+1), i < PackedPairs, whose two products of a lane share one DSP48E2
    /// multiply (st_gemv_channel Ways = 2): 0 .. Channels/2, and 0 unless WBits + SegBits + 1
    /// <= 27 and ABits <= 18. The same bits either way; the compiler packs as many pairs as the
    /// device's DSPs require.
    parameter int unsigned PackedPairs = 0
) (
    input  wire                             clk_i,
    input  wire                             rst_ni,     // synchronous, active low
    // channel streams: channel c at [512c +: 512]
    input  wire  [            Channels-1:0] w_valid_i,
    output logic [            Channels-1:0] w_ready_o,
    input  wire  [        Channels*512-1:0] w_data_i,
    // x ports: Lanes codes per token, element i at [i*ABits +: ABits]
    input  wire  [                NumX-1:0] x_valid_i,
    output logic [                NumX-1:0] x_ready_o,
    input  wire  [    NumX*Lanes*ABits-1:0] x_data_i,
    // y ports: Lanes codes per token, row b*Channels + t*Lanes + i at [i*OutBits +: OutBits]
    output logic [                NumY-1:0] valid_o,
    input  wire  [                NumY-1:0] ready_i,
    output logic [NumY*Lanes*OutBits-1:0]   data_o
);

  // ---- derived sizes ----------------------------------------------------------------------------
  localparam int unsigned NSeg = KLanes / SegLanes;
  localparam int unsigned GMax = MaxK / KLanes;  // weight words per row at most
  localparam int unsigned LogKL = $clog2(KLanes);
  localparam int unsigned LogSL = $clog2(SegLanes);
  localparam int unsigned LogNSeg = $clog2(NSeg);
  localparam int unsigned LogL = $clog2(Lanes);
  localparam int unsigned TokPerEntry = KLanes / Lanes;  // x tokens per x buffer entry
  localparam int unsigned TokMax = Channels / Lanes;  // y tokens of a full block
  // Accumulator (docs/numerics.md §3: exact, never saturates).
  localparam int unsigned ProdBits = WBits + ABits;
  localparam int unsigned SegBits = ProdBits + LogSL;
  localparam int unsigned ScaledBits = SegBits + 16;
  localparam int unsigned WordSumBits = ScaledBits + LogNSeg;
  localparam int unsigned SumBits = WordSumBits + $clog2(GMax);
  localparam int unsigned RecBits = 78;
  // Counter widths (at least 1 bit).
  localparam int unsigned GBits = $clog2(GMax + 1);
  localparam int unsigned JBits = GMax > 1 ? $clog2(GMax) : 1;
  localparam int unsigned WpcBits = $clog2(32 * GMax + 1);
  localparam int unsigned TokBits = $clog2(TokMax + 1);
  localparam int unsigned XSubBits = TokPerEntry > 1 ? $clog2(TokPerEntry) : 1;
  localparam int unsigned XPBits = NumX > 1 ? $clog2(NumX) : 1;
  localparam int unsigned XAddrBits = $clog2(2 * GMax);
  localparam int unsigned YPBits = NumY > 1 ? $clog2(NumY) : 1;
  localparam int unsigned XTokBits = Lanes * ABits;
  localparam int unsigned YTokBits = Lanes * OutBits;
  localparam int unsigned XEntryBits = KLanes * ABits;
  // Read only by the ram_style attribute, which the Verilator lint does not see.
  /* verilator lint_off UNUSEDPARAM */
  localparam XRamStyle = 2 * GMax * XEntryBits >= 16384 ? "block" : "distributed";
  /* verilator lint_on UNUSEDPARAM */

  // ---- parameter checks -------------------------------------------------------------------------
  if (Channels < 1) begin : gen_bad_channels
    $fatal(1, "st_gemv_engine: Channels must be >= 1");
  end
  if (WBits != 4 && WBits != 8) begin : gen_bad_wbits
    $fatal(1, "st_gemv_engine: WBits must be 4 or 8");
  end
  if (ABits != 8 && ABits != 16) begin : gen_bad_abits
    $fatal(1, "st_gemv_engine: ABits must be 8 or 16");
  end
  if (KLanes < 2 || (KLanes & (KLanes - 1)) != 0 || KLanes * WBits > 512) begin : gen_bad_klanes
    $fatal(1, "st_gemv_engine: KLanes must be a power of two >= 2 with KLanes * WBits <= 512");
  end
  if (SegLanes < 1 || (SegLanes & (SegLanes - 1)) != 0 || KLanes % SegLanes != 0 || NSeg > 32)
  begin : gen_bad_seg
    $fatal(1, "st_gemv_engine: SegLanes must be a power of two dividing KLanes, <= 32 segments");
  end
  if (Lanes < 1 || Channels % Lanes != 0 || KLanes % Lanes != 0) begin : gen_bad_lanes
    $fatal(1, "st_gemv_engine: Lanes must divide Channels and KLanes");
  end
  if (MaxK < KLanes || MaxK % KLanes != 0) begin : gen_bad_maxk
    $fatal(1, "st_gemv_engine: MaxK must be a positive multiple of KLanes");
  end
  if (OutBits < 2 || OutBits > 32) begin : gen_bad_outbits
    $fatal(1, "st_gemv_engine: OutBits must be in 2..32");
  end
  if (NumX < 1 || NumX > 256 || NumY < 1 || NumY > 256) begin : gen_bad_ports
    $fatal(1, "st_gemv_engine: NumX and NumY must be in 1..256");
  end

  // ---- descriptor fields (channel 0's D word) ---------------------------------------------------
  wire [511:0] d_word = w_data_i[511:0];
  wire [31:0] d_k = d_word[31:0];
  wire [31:0] d_b = d_word[63:32];
  wire [31:0] d_n = d_word[95:64];
  wire [5:0] d_ob = d_word[101:96];
  wire [31:0] d_g = d_word[135:104];
  wire [7:0] d_xp = d_word[143:136];
  wire d_reuse = d_word[144];
  wire [7:0] d_yp = d_word[159:152];
  wire d_ann = d_word[160];  // the next invocation's x is announced: the loader takes it early
  wire [7:0] d_ann_xp = d_word[175:168];
  wire [31:0] d_ann_k = d_word[207:176];
  // Group geometry: for g <= KLanes (a power of two) a word uses KLanes/g mantissas and segment
  // s the (s >> log2(g/SegLanes))-th of them; for g > KLanes (a multiple) a word uses one, the
  // same for g/KLanes words. An S word comes before every 32*g/KLanes-th W word.
  logic [4:0] d_lg;  // log2(g) for g <= KLanes
  always_comb begin
    d_lg = '0;
    for (int i = 0; i <= LogKL; i++) if (d_g[i]) d_lg = 5'(i);
  end
  wire d_small_g = d_g <= 32'(KLanes);
  // KLanes/g mod 32 (32 mantissas per word: the chunk index wraps with every word's S word).
  wire [4:0] d_mstep = d_small_g ? 5'(6'(1) << (5'(LogKL) - d_lg)) : 5'd1;
  wire [4:0] d_segsh = d_small_g ? d_lg - 5'(LogSL) : 5'(LogNSeg);
  wire [GBits-1:0] d_wpg_m1 = d_small_g ? '0 : GBits'((d_g >> LogKL) - 32'd1);
  wire [WpcBits-1:0] d_wpc_m1 = WpcBits'(((d_g << 5) >> LogKL) - 32'd1);
  wire [31:0] d_last_rows = d_n - (d_b - 32'd1) * 32'(Channels);
  wire [TokBits-1:0] d_last_tok = TokBits'(d_last_rows >> LogL);
  // D bits the engine does not read: checked zero by the assertions below.
  wire unused_d = ^{d_word[511:208], d_word[167:161], d_word[151:145], d_word[103:102]};

  // ---- front: super-word FSM --------------------------------------------------------------------
  localparam logic [1:0] StDesc = 2'd0, StX = 2'd1, StRun = 2'd2;
  logic [1:0] state_q;
  // descriptor of the invocation in the front
  logic [GBits-1:0] words_q;  // G = K / KLanes
  logic [31:0] bm1_q;  // B - 1
  logic [TokBits-1:0] last_tok_q;  // tokens of the last block
  logic [5:0] ob_q;
  logic [YPBits-1:0] yp_q;
  logic grouped_q;
  logic [WpcBits-1:0] wpc_m1_q;
  logic [GBits-1:0] wpg_m1_q;
  logic [4:0] mstep_q;  // mantissas per word mod 32 (32: every word has its own S word)
  logic [4:0] segsh_q;
  // position
  logic [31:0] blk_q;
  logic [JBits-1:0] j_q;  // W word within the row
  logic [2:0] grp6_q;  // blk_q % 6: record of the block in its P word
  logic need_p_q, need_s_q;
  logic [WpcBits-1:0] wc_q;  // W words since the last S word
  logic [GBits-1:0] wsub_q;  // W words of the current mantissa (g > KLanes)
  logic [4:0] mbase_q;  // mantissa of the word's first segment, within the chunk
  logic [1:0] pslot_q, cur_pslot_q;  // next P slot; slot of the current block's P word
  logic [TokBits-1:0] gap_q;  // cycles until the next block's last W word may go

  logic adv;  // the pipeline advances
  wire all_valid = &w_valid_i;
  wire running = state_q == StRun;
  wire is_p = need_p_q;
  wire is_s = !need_p_q && need_s_q;
  wire is_w = !need_p_q && !need_s_q;
  wire row_last = j_q == JBits'(words_q - 1'b1);
  wire blk_last = blk_q == bm1_q;
  wire pace_ok = !(is_w && row_last && gap_q != '0);
  wire take = all_valid && (state_q == StDesc || (running && adv && pace_ok));
  wire d_fire = take && state_q == StDesc;
  wire p_fire = take && running && is_p;
  wire s_fire = take && running && is_s;
  wire w_fire = take && running && is_w;
  wire [TokBits-1:0] blk_tok = blk_last ? last_tok_q : TokBits'(TokMax);
  assign w_ready_o = {Channels{take}};

  // x loader: fills buffer ~rbank_q with K/Lanes tokens of port ld_xp_q (busy), then holds
  // them (full) until its invocation's D claims them (rbank_q flips).
  logic rbank_q;  // the x buffer the running invocation reads
  logic ld_busy_q, ld_full_q;
  logic [XPBits-1:0] ld_xp_q;
  logic [GBits-1:0] ld_words_q;  // entries to load
  logic [JBits-1:0] ld_entry_q;
  logic [XSubBits-1:0] ld_sub_q;
  logic ann_q;  // the running invocation announced the next one's x: load it once this runs
  logic [XPBits-1:0] ann_xp_q;
  logic [GBits-1:0] ann_words_q;
  logic x_valid;
  logic [XTokBits-1:0] x_data;
  if (NumX > 1) begin : gen_x_mux
    assign x_valid = x_valid_i[ld_xp_q];
    assign x_data = x_data_i[ld_xp_q*XTokBits+:XTokBits];
  end else begin : gen_x_one
    assign x_valid = x_valid_i[0];
    assign x_data = x_data_i;
  end
  wire x_fire = ld_busy_q && x_valid;
  wire x_entry_done = ld_sub_q == XSubBits'(TokPerEntry - 1);
  wire x_last = x_fire && x_entry_done && ld_entry_q == JBits'(ld_words_q - 1'b1);
  wire x_complete = ld_full_q || x_last;  // the loaded x is whole (with this cycle's token)
  // The invocation starts its super-words: at a reusing D, at a D whose announced x is whole,
  // or when the x it waits for completes. It then claims the loaded x (unless reusing) and
  // the loader turns to the announced next x.
  wire d_go = d_fire && (d_reuse || ((ld_busy_q || ld_full_q) && x_complete));
  wire x_go = state_q == StX && x_last;
  wire claim = (d_go && !d_reuse) || x_go;
  wire preload = (d_go && d_ann) || (x_go && ann_q);
  wire load_now = d_fire && !d_reuse && !ld_busy_q && !ld_full_q;  // not announced: load now
  always_comb begin
    x_ready_o = '0;
    if (ld_busy_q) x_ready_o[ld_xp_q] = 1'b1;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      state_q <= StDesc;
      pslot_q <= '0;
      gap_q <= '0;
      rbank_q <= 1'b0;
      ld_busy_q <= 1'b0;
      ld_full_q <= 1'b0;
    end else begin
      if (gap_q != '0) gap_q <= gap_q - 1'b1;
      if (d_fire) state_q <= d_go ? StRun : StX;
      if (x_go) state_q <= StRun;
      if (claim) rbank_q <= ~rbank_q;
      if (x_last) begin
        ld_busy_q <= 1'b0;
        ld_full_q <= 1'b1;
      end
      if (claim) ld_full_q <= 1'b0;
      if (load_now || preload) ld_busy_q <= 1'b1;
      if (p_fire) pslot_q <= pslot_q == 2'd2 ? 2'd0 : pslot_q + 2'd1;
      if (w_fire && row_last) begin
        gap_q <= blk_tok - 1'b1;
        if (blk_last) state_q <= StDesc;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (d_fire) begin
      ann_q <= d_ann;
      ann_xp_q <= XPBits'(d_ann_xp);
      ann_words_q <= GBits'(d_ann_k >> LogKL);
    end
    if (x_fire) begin
      ld_sub_q <= x_entry_done ? '0 : ld_sub_q + 1'b1;
      if (x_entry_done) ld_entry_q <= ld_entry_q + 1'b1;
    end
    if (load_now || preload) begin
      ld_entry_q <= '0;
      ld_sub_q <= '0;
    end
    if (load_now) begin
      ld_xp_q <= XPBits'(d_xp);
      ld_words_q <= GBits'(d_k >> LogKL);
    end else if (preload) begin
      ld_xp_q <= d_fire ? XPBits'(d_ann_xp) : ann_xp_q;
      ld_words_q <= d_fire ? GBits'(d_ann_k >> LogKL) : ann_words_q;
    end
  end

  // Position and descriptor registers: meaningful only in the states that read them.
  always_ff @(posedge clk_i) begin
    if (d_fire) begin
      words_q <= GBits'(d_k >> LogKL);
      bm1_q <= d_b - 32'd1;
      last_tok_q <= d_last_tok;
      ob_q <= d_ob;
      yp_q <= YPBits'(d_yp);
      grouped_q <= d_g != '0;
      wpc_m1_q <= d_wpc_m1;
      wpg_m1_q <= d_wpg_m1;
      mstep_q <= d_mstep;
      segsh_q <= d_segsh;
      blk_q <= '0;
      j_q <= '0;
      grp6_q <= '0;
      need_p_q <= 1'b1;
      need_s_q <= d_g != '0;
      wc_q <= '0;
      wsub_q <= '0;
      mbase_q <= '0;
    end
    if (p_fire) begin
      need_p_q <= 1'b0;
      cur_pslot_q <= pslot_q;
    end
    if (s_fire) begin
      need_s_q <= 1'b0;
      mbase_q <= '0;
      wsub_q <= '0;
    end
    if (w_fire) begin
      j_q <= row_last ? '0 : j_q + 1'b1;
      if (row_last) begin
        blk_q <= blk_q + 32'd1;
        grp6_q <= grp6_q == 3'd5 ? 3'd0 : grp6_q + 3'd1;
        need_p_q <= grp6_q == 3'd5;
      end
      if (grouped_q) begin
        if (wc_q == wpc_m1_q) begin
          wc_q <= '0;
          need_s_q <= 1'b1;
        end else begin
          wc_q <= wc_q + 1'b1;
        end
        if (wsub_q == wpg_m1_q) begin
          wsub_q <= '0;
          mbase_q <= mbase_q + mstep_q;
        end else begin
          wsub_q <= wsub_q + 1'b1;
        end
      end
    end
  end

  // ---- x buffer: K/KLanes entries of KLanes codes ---------------------------------------------
  logic [XEntryBits-1:0] x_wdata;
  if (TokPerEntry > 1) begin : gen_x_assemble
    // Earlier tokens of the entry, first token in the low bits.
    logic [(TokPerEntry-1)*XTokBits-1:0] x_asm_q;
    if (TokPerEntry > 2) begin : gen_shift
      always_ff @(posedge clk_i) begin
        if (x_fire) x_asm_q <= {x_data, x_asm_q[(TokPerEntry-1)*XTokBits-1:XTokBits]};
      end
    end else begin : gen_one
      always_ff @(posedge clk_i) begin
        if (x_fire) x_asm_q <= x_data;
      end
    end
    assign x_wdata = {x_data, x_asm_q};
  end else begin : gen_x_direct
    assign x_wdata = x_data;
  end

  // Two buffers of GMax entries: entry e of buffer k at k * GMax + e. The loader writes the one
  // the running invocation does not read.
  (* ram_style = XRamStyle *) logic [XEntryBits-1:0] x_mem[2*GMax];
  logic [XEntryBits-1:0] x1_q;  // R1: the x entry of the W word
  wire [XAddrBits-1:0] x_waddr = XAddrBits'(ld_entry_q) + (rbank_q ? '0 : XAddrBits'(GMax));
  wire [XAddrBits-1:0] x_raddr = XAddrBits'(j_q) + (rbank_q ? XAddrBits'(GMax) : '0);
  always_ff @(posedge clk_i) begin
    if (x_fire && x_entry_done) x_mem[x_waddr] <= x_wdata;
    if (w_fire) x1_q <= x_mem[x_raddr];
  end

  // ---- pipeline control: R1 .. R5 -------------------------------------------------------------
  // Per block (with its last word): P slot and record, tokens, out bits, y port.
  localparam int unsigned MetaBits = 2 + 3 + TokBits + 6 + YPBits;
  logic v1_q, v2_q, v3_q, v4_q, done5_q;
  logic first1_q, first2_q, first3_q, first4_q, last1_q, last2_q, last3_q, last4_q;
  logic [MetaBits-1:0] meta1_q, meta2_q, meta3_q, meta4_q, meta5_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      v1_q <= 1'b0;
      v2_q <= 1'b0;
      v3_q <= 1'b0;
      v4_q <= 1'b0;
      done5_q <= 1'b0;
    end else if (adv) begin
      v1_q <= w_fire;
      v2_q <= v1_q;
      v3_q <= v2_q;
      v4_q <= v3_q;
      done5_q <= v4_q && last4_q;
    end
  end
  always_ff @(posedge clk_i) begin
    if (adv) begin
      first1_q <= j_q == '0;
      last1_q <= row_last;
      meta1_q <= {cur_pslot_q, grp6_q, blk_tok, ob_q, yp_q};
      first2_q <= first1_q;
      last2_q <= last1_q;
      meta2_q <= meta1_q;
      first3_q <= first2_q;
      last3_q <= last2_q;
      meta3_q <= meta2_q;
      first4_q <= first3_q;
      last4_q <= last3_q;
      meta4_q <= meta3_q;
      meta5_q <= meta4_q;
    end
  end
  wire [1:0] m5_slot = meta5_q[MetaBits-1-:2];
  wire [2:0] m5_rec = meta5_q[MetaBits-3-:3];
  wire [TokBits-1:0] m5_tok = meta5_q[YPBits+6+:TokBits];
  wire [5:0] m5_ob = meta5_q[YPBits+:6];
  wire [YPBits-1:0] m5_yp = meta5_q[YPBits-1:0];

  // Per segment: the S-chunk index of its mantissa for the W word taken now.
  logic [NSeg*5-1:0] mant_idx;
  for (genvar s = 0; s < NSeg; s++) begin : gen_mant_idx
    assign mant_idx[s*5+:5] = mbase_q + 5'(s >> segsh_q);
  end

  // ---- channels ---------------------------------------------------------------------------------
  logic [Channels*SumBits-1:0] acc_all;
  logic [Channels*RecBits-1:0] rec_all;
  // Channels 2i and 2i+1 (i < PackedPairs) share one st_gemv_channel whose multiplies take both
  // their products (two int4 x int8 products per DSP48E2); the others have one each.
  if (PackedPairs > Channels / 2 ||
      (PackedPairs > 0 && (WBits + SegBits + 1 > 27 || ABits > 18))) begin : gen_bad_packed
    $fatal(1, "st_gemv_engine: PackedPairs must be 0 .. Channels/2, 0 unless packable");
  end
  for (genvar c = 0; c < Channels; c++) begin : gen_channel
    localparam int unsigned Ways = c < 2 * PackedPairs ? 2 : 1;
    if (c >= 2 * PackedPairs || c % 2 == 0) begin : gen_instance
      st_gemv_channel #(
          .KLanes(KLanes),
          .SegLanes(SegLanes),
          .WBits(WBits),
          .ABits(ABits),
          .SumBits(SumBits),
          .Ways(Ways)
      ) u_channel (
          .clk_i,
          .adv_i(adv),
          .word_i(w_data_i[c*512+:Ways*512]),
          .p_take_i(p_fire),
          .p_slot_i(pslot_q),
          .s_take_i(s_fire),
          .w_take_i(w_fire),
          .grouped_i(grouped_q),
          .mant_idx_i(mant_idx),
          .x_i(x1_q),
          .acc_en_i(adv && v4_q),
          .acc_first_i(first4_q),
          .rec_slot_i(m5_slot),
          .rec_idx_i(m5_rec),
          .acc_o(acc_all[c*SumBits+:Ways*SumBits]),
          .rec_o(rec_all[c*RecBits+:Ways*RecBits])
      );
    end
  end

  // ---- output buffer (hold): one finished block, emitted Lanes rows per token -----------------
  logic radv;  // the requantization stages advance
  logic [TokBits-1:0] hold_left_q;
  logic [5:0] hold_ob_q;
  logic [YPBits-1:0] hold_yp_q;
  logic [Channels*SumBits-1:0] hold_acc_q;
  logic [Channels*RecBits-1:0] hold_rec_q;
  wire emit = hold_left_q != '0 && radv;
  wire hold_free = hold_left_q == '0 || (hold_left_q == TokBits'(1) && radv);
  assign adv = !done5_q || hold_free;
  wire handoff = done5_q && hold_free;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) hold_left_q <= '0;
    else if (handoff) hold_left_q <= m5_tok;
    else if (emit) hold_left_q <= hold_left_q - 1'b1;
  end
  always_ff @(posedge clk_i) begin
    if (handoff) begin
      hold_acc_q <= acc_all;
      hold_rec_q <= rec_all;
      hold_ob_q <= m5_ob;
      hold_yp_q <= m5_yp;
    end else if (emit) begin
      hold_acc_q <= hold_acc_q >> (Lanes * SumBits);
      hold_rec_q <= hold_rec_q >> (Lanes * RecBits);
    end
  end

  // ---- requantization (r1..r4, one st_requant_row per lane) and the y ports ------------------
  logic rv1_q, rv2_q, rv3_q, rv4_q;
  logic [YPBits-1:0] ryp1_q, ryp2_q, ryp3_q, ryp4_q;
  logic slice_ready;
  assign radv = !rv4_q || slice_ready;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      rv1_q <= 1'b0;
      rv2_q <= 1'b0;
      rv3_q <= 1'b0;
      rv4_q <= 1'b0;
    end else if (radv) begin
      rv1_q <= emit;
      rv2_q <= rv1_q;
      rv3_q <= rv2_q;
      rv4_q <= rv3_q;
    end
  end
  always_ff @(posedge clk_i) begin
    if (radv) begin
      ryp1_q <= hold_yp_q;
      ryp2_q <= ryp1_q;
      ryp3_q <= ryp2_q;
      ryp4_q <= ryp3_q;
    end
  end

  logic [YTokBits-1:0] y_d;
  for (genvar i = 0; i < Lanes; i++) begin : gen_requant
    wire [RecBits-1:0] rec = hold_rec_q[i*RecBits+:RecBits];
    st_requant_row #(
        .AccBits(SumBits),
        .OutBits(OutBits)
    ) u_requant (
        .clk_i,
        .en_i(radv),
        .acc_i(hold_acc_q[i*SumBits+:SumBits]),
        .bias_i(rec[47:0]),
        .mantissa_i(rec[71:48]),
        .shift_i(rec[77:72]),
        .out_bits_i(hold_ob_q),
        .y_o(y_d[i*OutBits+:OutBits])
    );
  end

  logic slice_valid;
  logic [YPBits+YTokBits-1:0] slice_data;
  wire [YPBits-1:0] out_port = slice_data[YPBits+YTokBits-1:YTokBits];
  logic out_ready;
  if (NumY > 1) begin : gen_y_mux
    assign out_ready = ready_i[out_port];
  end else begin : gen_y_one
    assign out_ready = ready_i[0];
  end
  st_skid_buffer #(
      .Width(YPBits + YTokBits)
  ) u_out_slice (
      .clk_i,
      .rst_ni,
      .valid_i(rv4_q),
      .ready_o(slice_ready),
      .data_i ({ryp4_q, y_d}),
      .valid_o(slice_valid),
      .ready_i(out_ready),
      .data_o (slice_data)
  );
  for (genvar p = 0; p < NumY; p++) begin : gen_y_port
    assign valid_o[p] = slice_valid && out_port == YPBits'(p);
    assign data_o[p*YTokBits+:YTokBits] = slice_data[YTokBits-1:0];
  end

`ifndef SYNTHESIS
  // The descriptor obeys docs/gemv-engine.md, and every channel carries the same one.
  always_ff @(posedge clk_i) begin
    if (rst_ni && d_fire) begin
      for (int c = 1; c < Channels; c++)
        assert (w_data_i[c*512+:512] == d_word)
        else $error("st_gemv_engine: channel %0d's descriptor differs from channel 0's", c);
      assert (d_k != 0 && d_k % KLanes == 0 && d_k <= MaxK)
      else $error("st_gemv_engine: K = %0d is not a multiple of KLanes up to MaxK", d_k);
      assert (d_b != 0 && d_n % Lanes == 0 && d_n > (d_b - 1) * Channels &&
              d_n <= d_b * Channels)
      else $error("st_gemv_engine: B = %0d, N = %0d do not fit", d_b, d_n);
      assert (d_ob >= 6'd2 && 32'(d_ob) <= OutBits)
      else $error("st_gemv_engine: out bits %0d outside 2..OutBits", d_ob);
      assert (d_g == 0 || (d_g % SegLanes == 0 && d_k % d_g == 0 &&
                           (d_g % KLanes == 0 || KLanes % d_g == 0)))
      else $error("st_gemv_engine: group size %0d does not fit", d_g);
      assert (32'(d_xp) < NumX && 32'(d_yp) < NumY)
      else $error("st_gemv_engine: port out of range (x %0d, y %0d)", d_xp, d_yp);
      assert (d_word[511:208] == '0 && d_word[167:161] == '0 && d_word[151:145] == '0 &&
              d_word[103:102] == '0)
      else $error("st_gemv_engine: reserved descriptor bits set");
      assert (!d_ann || (32'(d_ann_xp) < NumX && d_ann_k != 0 && d_ann_k % KLanes == 0 &&
                         d_ann_k <= MaxK))
      else $error("st_gemv_engine: announced x (port %0d, K %0d) does not fit", d_ann_xp, d_ann_k);
      // An announced x is the next invocation's, which loads it (never a reusing one).
      if (ld_busy_q || ld_full_q)
        assert (!d_reuse && ld_xp_q == XPBits'(d_xp) && ld_words_q == GBits'(d_k >> LogKL))
        else $error("st_gemv_engine: the announced x (port %0d) is not this invocation's", ld_xp_q);
    end
  end
  // The records of a block are read (at its hand-off) before its P slot is refilled: count the
  // blocks in flight per slot.
  int unsigned in_flight[3];
  for (genvar s = 0; s < 3; s++) begin : gen_slot_check
    always_ff @(posedge clk_i) begin
      if (!rst_ni) in_flight[s] <= 0;
      else
        in_flight[s] <= in_flight[s] + ((w_fire && row_last && cur_pslot_q == 2'(s)) ? 1 : 0) -
                        ((handoff && m5_slot == 2'(s)) ? 1 : 0);
      if (rst_ni && p_fire && pslot_q == 2'(s))
        assert (in_flight[s] == 0 || (in_flight[s] == 1 && handoff && m5_slot == 2'(s)))
        else $error("st_gemv_engine: P slot %0d refilled before its last block handed off", s);
    end
  end
`endif

endmodule

`default_nettype wire
