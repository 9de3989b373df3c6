// st_gemv_channel: the datapath of one weight channel of st_gemv_engine (docs/gemv-engine.md):
// the row records and mantissas of the channel's stream, KLanes multipliers, per-segment exact
// sums times the segment's group mantissa, and the row accumulator. The engine instantiates it
// once per channel and drives every control input of all channels alike (one FSM), so the
// channels run in lockstep; synthesis with kept hierarchy maps it once.
//
// Pipeline (stages advance on adv_i; the engine tracks which stage holds a valid word):
//   R1  w_take_i: the weight word, and per segment its mantissa chunk[mant_idx] (or 1 when not
//       grouped); the engine registers the word's x entry beside it (x_i)
//   R2  KLanes products W * x (signed WBits x ABits)
//   R3  per segment the exact sum of its SegLanes products
//   R4  per segment the sum times its u16 mantissa (exact)
//   R5  acc_en_i: accumulator = (acc_first_i ? 0 : accumulator) + the word's segment sum
// Records: a P word's six 80-bit records are kept in one of three slots (p_slot_i) until the
// engine reads the record of a finished row (rec_slot_i, rec_idx_i: combinational rec_o).
`default_nettype none

module st_gemv_channel #(
    /// Codes per weight word (a power of two, KLanes * WBits <= 512).
    parameter int unsigned KLanes = 16,
    /// Codes per segment (a power of two dividing KLanes; KLanes / SegLanes <= 32).
    parameter int unsigned SegLanes = 16,
    /// Weight code bits: 4 or 8.
    parameter int unsigned WBits = 4,
    /// Activation code bits: 8 or 16.
    parameter int unsigned ABits = 8,
    /// Accumulator width: exact for the engine's largest K (st_gemv_engine computes it).
    parameter int unsigned SumBits = 40
) (
    input  wire                           clk_i,
    input  wire                           adv_i,       // the pipeline advances
    input  wire  [                 511:0] word_i,      // this channel's stream word
    input  wire                           p_take_i,    // word_i is a P word (row records)
    input  wire  [                   1:0] p_slot_i,    // ... kept in this slot (0..2)
    input  wire                           s_take_i,    // word_i is an S word (32 mantissas)
    input  wire                           w_take_i,    // word_i is a W word (into R1)
    input  wire                           grouped_i,   // 0: every mantissa is 1
    input  wire  [(KLanes/SegLanes)*5-1:0] mant_idx_i,  // per segment: mantissa of the S word
    input  wire  [      KLanes*ABits-1:0] x_i,         // R1: the x entry of the word
    input  wire                           acc_en_i,    // R4 holds a valid word (adv_i is set)
    input  wire                           acc_first_i, // ... the first word of its row
    input  wire  [                   1:0] rec_slot_i,  // record read: slot
    input  wire  [                   2:0] rec_idx_i,   // record read: record in the P word
    output logic [           SumBits-1:0] acc_o,       // R5 accumulator
    output logic [                  77:0] rec_o        // bias s48, mantissa u24, shift u6
);

  localparam int unsigned NSeg = KLanes / SegLanes;
  localparam int unsigned ProdBits = WBits + ABits;
  localparam int unsigned SegBits = ProdBits + $clog2(SegLanes);
  localparam int unsigned MantBits = 16;
  localparam int unsigned ScaledBits = SegBits + MantBits;
  localparam int unsigned WordSumBits = ScaledBits + $clog2(NSeg);
  localparam int unsigned RecBits = 78;  // of each 80-bit record; bits 78, 79 are zero
  localparam int unsigned Records = 6;

  if (KLanes < 2 || (KLanes & (KLanes - 1)) != 0 || KLanes * WBits > 512) begin : gen_bad_klanes
    $fatal(1, "st_gemv_channel: KLanes must be a power of two >= 2 with KLanes * WBits <= 512");
  end
  if (SegLanes < 1 || KLanes % SegLanes != 0 || (SegLanes & (SegLanes - 1)) != 0 || NSeg > 32)
  begin : gen_bad_seg
    $fatal(1, "st_gemv_channel: SegLanes must be a power of two dividing KLanes, <= 32 segments");
  end
  if (SumBits < WordSumBits) begin : gen_bad_sum
    $fatal(1, "st_gemv_channel: SumBits is narrower than one word's sum");
  end

  // ---- records: three slots of six ------------------------------------------------------------
  logic [Records*RecBits-1:0] slot_q[3];
  logic [Records*RecBits-1:0] p_records;
  for (genvar i = 0; i < Records; i++) begin : gen_rec_field
    assign p_records[i*RecBits+:RecBits] = word_i[i*80+:RecBits];
  end
  for (genvar s = 0; s < 3; s++) begin : gen_slot
    always_ff @(posedge clk_i) begin
      if (p_take_i && p_slot_i == 2'(s)) slot_q[s] <= p_records;
    end
  end
  // Read: a mux of the 18 records by slot and index (a case: no variable part-select, which
  // Yosys would build as a shifter over the whole slot).
  always_comb begin
    rec_o = '0;
    for (int s = 0; s < 3; s++)
      for (int i = 0; i < Records; i++)
        if (rec_slot_i == 2'(s) && rec_idx_i == 3'(i)) rec_o = slot_q[s][i*RecBits+:RecBits];
  end

  // ---- mantissas: the current chunk of 32 --------------------------------------------------
  logic [511:0] chunk_q;
  always_ff @(posedge clk_i) begin
    if (s_take_i) chunk_q <= word_i;
  end

  // ---- R1: weight word and per segment its mantissa -----------------------------------------
  logic [KLanes*WBits-1:0] w1_q;
  always_ff @(posedge clk_i) begin
    if (w_take_i) w1_q <= word_i[KLanes*WBits-1:0];
  end

  logic [SumBits-1:0] acc_q;
  logic signed [WordSumBits-1:0] word_sum;
  logic [NSeg*ScaledBits-1:0] scaled;
  for (genvar s = 0; s < NSeg; s++) begin : gen_seg
    logic [MantBits-1:0] m1_q, m2_q, m3_q;
    // chunk[mant_idx]: a tree of 2:1 muxes, one level per index bit (32 -> 1). Its levels and
    // the per-lane signals below are not traced: with 32 channels of 128 lanes their trace code
    // took most of the Verilated model's compile time (w1_q, x_i and the sums are traced).
    logic [MantBits-1:0] mant_sel;
    /* verilator tracing_off */
    wire [4:0] idx = mant_idx_i[s*5+:5];
    for (genvar lv = 0; lv <= 5; lv++) begin : gen_level
      logic [(32>>lv)*MantBits-1:0] v;
      if (lv == 0) begin : gen_leaves
        assign v = chunk_q;
      end else begin : gen_node
        for (genvar i = 0; i < (32 >> lv); i++) begin : gen_mux
          assign v[i*MantBits+:MantBits] =
              idx[lv-1] ? gen_level[lv-1].v[(2*i+1)*MantBits+:MantBits] :
                          gen_level[lv-1].v[(2*i)*MantBits+:MantBits];
        end
      end
    end
    /* verilator tracing_on */
    assign mant_sel = gen_level[5].v;
    always_ff @(posedge clk_i) begin
      if (w_take_i) m1_q <= grouped_i ? mant_sel : 16'd1;
      if (adv_i) begin
        m2_q <= m1_q;
        m3_q <= m2_q;
      end
    end

    // R2: products
    logic [SegLanes*ProdBits-1:0] prods;
    /* verilator tracing_off */
    for (genvar l = 0; l < SegLanes; l++) begin : gen_lane
      localparam int unsigned Lane = s * SegLanes + l;
      wire signed [WBits-1:0] w_code = w1_q[Lane*WBits+:WBits];
      wire signed [ABits-1:0] x_code = x_i[Lane*ABits+:ABits];
      logic signed [ProdBits-1:0] prod_q;
      always_ff @(posedge clk_i) begin
        if (adv_i) prod_q <= ProdBits'(w_code) * ProdBits'(x_code);
      end
      assign prods[l*ProdBits+:ProdBits] = prod_q;
    end
    /* verilator tracing_on */

    // R3: the segment's exact sum
    logic signed [SegBits-1:0] seg_d, seg_q;
    always_comb begin
      seg_d = '0;
      for (int l = 0; l < SegLanes; l++) seg_d = seg_d + SegBits'($signed(prods[l*ProdBits+:ProdBits]));
    end

    // R4: times the segment's mantissa
    logic signed [ScaledBits-1:0] scaled_q;
    always_ff @(posedge clk_i) begin
      if (adv_i) begin
        seg_q <= seg_d;
        scaled_q <= ScaledBits'(seg_q) * ScaledBits'($signed({1'b0, m3_q}));
      end
    end
    assign scaled[s*ScaledBits+:ScaledBits] = scaled_q;
  end

  // ---- R5: the row accumulator ------------------------------------------------------------------
  always_comb begin
    word_sum = '0;
    for (int s = 0; s < NSeg; s++) word_sum = word_sum + WordSumBits'($signed(scaled[s*ScaledBits+:ScaledBits]));
  end
  always_ff @(posedge clk_i) begin
    if (acc_en_i) acc_q <= (acc_first_i ? '0 : acc_q) + SumBits'(word_sum);
  end
  assign acc_o = acc_q;

endmodule

`default_nettype wire
