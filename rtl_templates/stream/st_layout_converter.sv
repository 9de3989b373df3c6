// st_layout_converter: the layout converter between a producer's and a consumer's itensor
// (docs/itensor.md "The converter RTL"): a ping-pong buffer written in the
// producer's token order and read in the consumer's.
//
// The stream is cut into phases (one iteration of the loops both itensors share around the
// buffer). In every phase the producer sends ProdTokens tokens of ProdElems elements and the
// consumer receives ConsTokens tokens of ConsElems elements. Token t of a phase writes its
// element e (lane e of data_i, lane 0 in the least significant ElemBits bits) to buffer address
// ProdTable[t].lane[e]; consumer token t reads lane e from ConsTable[t].lane[e]. A producer reuse
// loop rewrites an address with identical data, a consumer reuse loop re-reads one. Every phase
// uses the same tables. compiler/ir/converter_program.h builds the tables and counts.
//
// Tables and counts come from $readmemh files (untyped string parameters holding paths), so
// one elaborated instance can run any program within its Max* parameters:
//   CountsFile:    4 words of 32 bits: ProdTokens, ConsTokens, ProdElems, ConsElems.
//   ProdTableFile: one line per producer token of a phase (at most MaxProdTokens), the lane
//                  addresses packed, lane 0 in the least significant AddrBits bits,
//                  AddrBits = max(1, clog2(MaxBufferElems)), MaxProdElems lanes per line.
//   ConsTableFile: the same for the consumer (MaxConsTokens lines of MaxConsElems lanes).
// Lanes at or above ProdElems are not written; output lanes at or above ConsElems are 0.
//
// Two banks of MaxBufferElems words: the producer fills one while the consumer drains the
// other. A bank is handed to the reader when the last producer token of its phase is written
// and back to the writer when the last consumer token of the phase has been read. With ideal
// streams (no backpressure, a producer token offered every cycle) the first output leaves
// ProdTokens + 1 cycles after the first input (the first phase is written, then one cycle of
// memory read into the output register); after that both sides move one token per cycle, the
// faster side waiting for the slower one at phase boundaries: the last output of a tensor of
// P phases leaves ProdTokens + ConsTokens + (P - 1) * max(ProdTokens, ConsTokens) cycles after
// the first input (compiler/model/converter_model.h).
//
// Storage rule: with one element per token on both sides (MaxProdElems = MaxConsElems = 1) the
// buffer is a simple dual-port memory (one write port, one registered read port) whose
// implementation is chosen by size as in st_block_replayer: registers for at most 8 words,
// LUTRAM up to 256 words of at most 8 Kbit, block RAM beyond. With several lanes per token
// every lane may address any word, so the buffer is kept in registers (one write decoder and
// one read multiplexer per lane): meant for small buffers. The address tables are ROMs read
// synchronously one token ahead (block RAM or LUTs, as the synthesizer sees fit).
//
// valid_o/data_o come from the output register (the memory's read register); ready_o comes from
// a flop (the writer's bank state). The read issue depends combinationally on ready_i.
`default_nettype none

module st_layout_converter #(
    /// Bits of one element (>= 1).
    parameter int unsigned ElemBits = 8,
    /// Element lanes of data_i: the most elements a producer token may have (>= 1).
    parameter int unsigned MaxProdElems = 1,
    /// Element lanes of data_o: the most elements a consumer token may have (>= 1).
    parameter int unsigned MaxConsElems = 1,
    /// Words of one bank: the largest buffer (>= 1).
    parameter int unsigned MaxBufferElems = 16,
    /// The most producer / consumer tokens of one phase (>= 1).
    parameter int unsigned MaxProdTokens = 16,
    parameter int unsigned MaxConsTokens = 16,
    /// $readmemh files (see above), written by compiler/ir/converter_program.h. Mandatory.
    parameter CountsFile = "",
    parameter ProdTableFile = "",
    parameter ConsTableFile = ""
) (
    input  wire                                 clk_i,
    input  wire                                 rst_ni,   // synchronous, active low
    // producer side
    input  wire                                 valid_i,
    output logic                                ready_o,
    input  wire  [MaxProdElems*ElemBits-1:0]    data_i,
    // consumer side
    output logic                                valid_o,
    input  wire                                 ready_i,
    output logic [MaxConsElems*ElemBits-1:0]    data_o
);

  if (ElemBits < 1) begin : gen_bad_elem_bits
    $fatal(1, "st_layout_converter: ElemBits must be >= 1");
  end
  if (MaxProdElems < 1 || MaxConsElems < 1) begin : gen_bad_lanes
    $fatal(1, "st_layout_converter: MaxProdElems and MaxConsElems must be >= 1");
  end
  if (MaxBufferElems < 1) begin : gen_bad_buffer
    $fatal(1, "st_layout_converter: MaxBufferElems must be >= 1");
  end
  if (MaxProdTokens < 1 || MaxConsTokens < 1) begin : gen_bad_tokens
    $fatal(1, "st_layout_converter: MaxProdTokens and MaxConsTokens must be >= 1");
  end

  localparam int unsigned AddrBits = (MaxBufferElems > 1) ? $clog2(MaxBufferElems) : 1;
  localparam int unsigned Depth = 2 * MaxBufferElems;
  localparam int unsigned MemAddrBits = $clog2(Depth);
  localparam int unsigned ProdTokBits = (MaxProdTokens > 1) ? $clog2(MaxProdTokens) : 1;
  localparam int unsigned ConsTokBits = (MaxConsTokens > 1) ? $clog2(MaxConsTokens) : 1;
  localparam int unsigned ProdLaneBits = $clog2(MaxProdElems + 1);
  localparam int unsigned ConsLaneBits = $clog2(MaxConsElems + 1);
  localparam bit SingleLane = (MaxProdElems == 1) && (MaxConsElems == 1);
  // Used only in an attribute, which the linter does not read: it would call RamStyle unused.
  /* verilator lint_off UNUSEDPARAM */
  localparam RamStyle = !SingleLane ? "registers"
                      : (Depth <= 8) ? "registers"
                      : (Depth <= 256 && Depth * ElemBits <= 8192) ? "distributed" : "block";
  /* verilator lint_on UNUSEDPARAM */

  // ---- programs -------------------------------------------------------------------------
  // Only the low bits of the 32-bit count words are used.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] counts_rom[4];
  /* verilator lint_on UNUSEDSIGNAL */
  logic [MaxProdElems*AddrBits-1:0] prod_table[MaxProdTokens];
  logic [MaxConsElems*AddrBits-1:0] cons_table[MaxConsTokens];
  // Guarded so that a tool elaborating the default parameters (Yosys without -defer) passes.
  if (CountsFile != "") begin : gen_load_counts
    initial $readmemh(CountsFile, counts_rom);
  end
  if (ProdTableFile != "") begin : gen_load_prod
    initial $readmemh(ProdTableFile, prod_table);
  end
  if (ConsTableFile != "") begin : gen_load_cons
    initial $readmemh(ConsTableFile, cons_table);
  end
  wire [ProdTokBits-1:0] prod_last_tok = ProdTokBits'(counts_rom[0] - 32'd1);
  wire [ConsTokBits-1:0] cons_last_tok = ConsTokBits'(counts_rom[1] - 32'd1);
  wire [ProdLaneBits-1:0] prod_elems = ProdLaneBits'(counts_rom[2]);
  wire [ConsLaneBits-1:0] cons_elems = ConsLaneBits'(counts_rom[3]);

  // ---- state ------------------------------------------------------------------------------
  (* ram_style = RamStyle *) logic [ElemBits-1:0] mem_q[Depth];
  // Banks holding a complete phase that is not yet fully read.
  logic [1:0] full_q;
  // Writer: the token of the phase it writes next, its bank and that token's table row.
  logic [ProdTokBits-1:0] wr_tok_q, wr_tok_d;
  logic wr_bank_q;
  logic [MaxProdElems*AddrBits-1:0] wr_row_q;
  // Reader: the same for the consumer.
  logic [ConsTokBits-1:0] rd_tok_q, rd_tok_d;
  logic rd_bank_q;
  logic [MaxConsElems*AddrBits-1:0] rd_row_q;
  // The output register (the memory's read register).
  logic out_valid_q;
  logic [MaxConsElems*ElemBits-1:0] out_q;

  wire wr_fire = valid_i && ready_o;
  wire wr_phase_end = (wr_tok_q == prod_last_tok);
  wire rd_issue = full_q[rd_bank_q] && (!out_valid_q || ready_i);
  wire rd_phase_end = (rd_tok_q == cons_last_tok);

  assign ready_o = !full_q[wr_bank_q];
  assign valid_o = out_valid_q;
  assign data_o  = out_q;

  always_comb begin
    wr_tok_d = wr_tok_q;
    if (!rst_ni) wr_tok_d = '0;
    else if (wr_fire) wr_tok_d = wr_phase_end ? '0 : wr_tok_q + 1'b1;
    rd_tok_d = rd_tok_q;
    if (!rst_ni) rd_tok_d = '0;
    else if (rd_issue) rd_tok_d = rd_phase_end ? '0 : rd_tok_q + 1'b1;
  end

  always_ff @(posedge clk_i) begin
    wr_tok_q <= wr_tok_d;
    rd_tok_q <= rd_tok_d;
    if (!rst_ni) begin
      full_q      <= '0;
      wr_bank_q   <= 1'b0;
      rd_bank_q   <= 1'b0;
      out_valid_q <= 1'b0;
    end else begin
      if (wr_fire && wr_phase_end) begin
        full_q[wr_bank_q] <= 1'b1;
        wr_bank_q <= !wr_bank_q;
      end
      if (rd_issue && rd_phase_end) begin
        // The phase has been read: hand its bank back to the writer.
        full_q[rd_bank_q] <= 1'b0;
        rd_bank_q <= !rd_bank_q;
      end
      if (rd_issue) out_valid_q <= 1'b1;
      else if (ready_i) out_valid_q <= 1'b0;
    end
  end

  // Table rows, read one token ahead (synchronous ROM reads; not reset).
  always_ff @(posedge clk_i) begin
    wr_row_q <= prod_table[wr_tok_d];
    rd_row_q <= cons_table[rd_tok_d];
  end

  // Memory words of each lane's address: bank 1 lies MaxBufferElems words above bank 0.
  logic [MemAddrBits-1:0] wr_word[MaxProdElems];
  logic [MemAddrBits-1:0] rd_word[MaxConsElems];
  for (genvar l = 0; l < MaxProdElems; l++) begin : gen_wr_word
    assign wr_word[l] = MemAddrBits'(wr_row_q[l*AddrBits+:AddrBits]) +
                        (wr_bank_q ? MemAddrBits'(MaxBufferElems) : '0);
  end
  for (genvar l = 0; l < MaxConsElems; l++) begin : gen_rd_word
    assign rd_word[l] = MemAddrBits'(rd_row_q[l*AddrBits+:AddrBits]) +
                        (rd_bank_q ? MemAddrBits'(MaxBufferElems) : '0);
  end

  // Memory and read register: not reset.
  always_ff @(posedge clk_i) begin
    for (int unsigned l = 0; l < MaxProdElems; l++) begin
      if (wr_fire && ProdLaneBits'(l) < prod_elems) mem_q[wr_word[l]] <= data_i[l*ElemBits+:ElemBits];
    end
  end
  always_ff @(posedge clk_i) begin
    if (rd_issue) begin
      for (int unsigned l = 0; l < MaxConsElems; l++) begin
        // Lane 0 is always used (ConsElems >= 1): no mask, so a single lane maps to a RAM.
        if (l == 0 || ConsLaneBits'(l) < cons_elems) out_q[l*ElemBits+:ElemBits] <= mem_q[rd_word[l]];
        else out_q[l*ElemBits+:ElemBits] <= '0;
      end
    end
  end

`ifndef SYNTHESIS
  // The counts fit the instance; a bank is written only while it belongs to the writer and
  // read only while it belongs to the reader; every used address lies inside a bank.
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (counts_rom[0] >= 1 && counts_rom[0] <= MaxProdTokens)
      else $error("st_layout_converter: ProdTokens %0d outside 1..%0d", counts_rom[0], MaxProdTokens);
      assert (counts_rom[1] >= 1 && counts_rom[1] <= MaxConsTokens)
      else $error("st_layout_converter: ConsTokens %0d outside 1..%0d", counts_rom[1], MaxConsTokens);
      assert (counts_rom[2] >= 1 && counts_rom[2] <= MaxProdElems)
      else $error("st_layout_converter: ProdElems %0d outside 1..%0d", counts_rom[2], MaxProdElems);
      assert (counts_rom[3] >= 1 && counts_rom[3] <= MaxConsElems)
      else $error("st_layout_converter: ConsElems %0d outside 1..%0d", counts_rom[3], MaxConsElems);
    end
    if (rst_ni && wr_fire) begin
      assert (!full_q[wr_bank_q]);
      for (int unsigned l = 0; l < MaxProdElems; l++)
        if (ProdLaneBits'(l) < prod_elems)
          assert (32'(wr_row_q[l*AddrBits+:AddrBits]) < MaxBufferElems)
          else $error("st_layout_converter: producer address out of the bank");
    end
    if (rst_ni && rd_issue) begin
      assert (full_q[rd_bank_q]);
      for (int unsigned l = 0; l < MaxConsElems; l++)
        if (ConsLaneBits'(l) < cons_elems)
          assert (32'(rd_row_q[l*AddrBits+:AddrBits]) < MaxBufferElems)
          else $error("st_layout_converter: consumer address out of the bank");
    end
  end
`endif

endmodule

`default_nettype wire
