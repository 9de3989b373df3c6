// st_fifo: first-word fall-through valid/ready FIFO with a selectable memory primitive and
// occupancy profiling outputs.
//
// Holds at most Depth tokens; data_o is valid together with valid_o (no read request). ready_o
// is a register (not full) and valid_o a register or the OR of two: ready_o never depends on
// ready_i, so a token is never accepted when Depth tokens are held, even in a cycle in which
// one leaves (that costs nothing at Depth >= 2: the freed entry is taken the next cycle).
//
// Memory (RamStyle, applied as (* ram_style *) on the storage array as finn-rtllib does):
//   "registers", "distributed" (LUTRAM): asynchronous read. data_o is read straight from the
//       array at the read pointer. Latency from acceptance to valid_o: 1 cycle.
//   "block" (BRAM), "ultra" (URAM): synchronous read into the RAM's output register, followed
//       by a two-entry prefetch register that drives data_o. A token accepted while the RAM
//       and its output register are empty goes straight into the prefetch register (latency
//       1 cycle); otherwise it is written to the RAM (latency 3 cycles). This keeps one token
//       per cycle at every Depth >= 2. The RAM read enable depends on ready_i (a read is issued
//       when the token in the RAM output register moves on), never the address.
//   "auto" (default) chooses by size:
//       Depth <= 4                                     -> "registers"
//       Depth <= 64                                    -> "distributed" (RAM32M16/RAM64M8)
//       Depth >= 4096 and Depth * Width >= 147,456     -> "ultra" (URAM288 is 4096 x 72;
//                                                         147,456 bits = half of one URAM)
//       otherwise                                      -> "block" (RAMB36E2/RAMB18E2)
// Memories and payload registers are not reset; only control state is.
//
// Throughput: one token per cycle in and out at once for Depth >= 2 (any RamStyle); Depth 1
// alternates accept and deliver (half throughput).
//
// Profiling: count_o is the number of tokens inside (memory, RAM output register and prefetch
// register included); it is registered, so in every cycle it equals the tokens accepted minus
// the tokens delivered in earlier cycles. max_count_o is the largest count_o since reset,
// the current cycle's included.
//
// Search builds only (LimitPort = 1): the input limit_i (1 .. Depth, held constant from reset
// on) caps the occupancy at run time: ready_o falls when limit_i tokens are inside, exactly as
// a FIFO of Depth = limit_i and the same memory organisation would (nothing else depends on
// Depth). The compiler's FIFO-depth search (docs/fifo-sizing.md) instantiates every FIFO deep
// with LimitPort = 1 and tries depths without rebuilding. LimitPort = 0 (the default, every
// synthesized design) ignores limit_i: the RTL is exactly the fixed-depth FIFO. Note that
// "auto" picks the memory by Depth, not by limit_i: pass the RamStyle the small FIFO would
// have to reproduce its timing.
`default_nettype none

module st_fifo #(
    /// Payload width in bits (>= 1).
    parameter int unsigned Width = 32,
    /// Capacity in tokens (>= 1).
    parameter int unsigned Depth = 16,
    /// Memory primitive: "auto", "registers", "distributed", "block" or "ultra" (see above).
    parameter RamStyle = "auto",
    /// 1: limit_i caps the occupancy (search builds); 0: limit_i is ignored (see above).
    parameter int unsigned LimitPort = 0
) (
    input  wire                        clk_i,
    input  wire                        rst_ni,      // synchronous, active low
    // upstream
    input  wire                        valid_i,
    output logic                       ready_o,
    input  wire  [          Width-1:0] data_i,
    // downstream
    output logic                       valid_o,
    input  wire                        ready_i,
    output logic [          Width-1:0] data_o,
    // profiling
    output logic [$clog2(Depth+1)-1:0] count_o,     // tokens inside now
    output logic [$clog2(Depth+1)-1:0] max_count_o, // high-water mark of count_o since reset
    // run-time depth (LimitPort = 1 only; tie to '0 otherwise)
    input  wire  [$clog2(Depth+1)-1:0] limit_i
);

  // ---------------------------------------------------------------------------------------
  // Parameter decoding
  // ---------------------------------------------------------------------------------------
  localparam int unsigned StyleRegisters = 0;
  localparam int unsigned StyleDistributed = 1;
  localparam int unsigned StyleBlock = 2;
  localparam int unsigned StyleUltra = 3;
  localparam int unsigned StyleUnknown = 4;

  localparam int unsigned UltraMinDepth = 4096;
  localparam int unsigned UltraMinBits = 147456;
  // Depth * Width >= UltraMinBits, written without a product that could overflow 32 bits.
  localparam bit UltraSized =
      Depth >= UltraMinDepth && Width >= (UltraMinBits + Depth - 1) / Depth;
  localparam int unsigned AutoStyle =
      Depth <= 4 ? StyleRegisters :
      Depth <= 64 ? StyleDistributed :
      UltraSized ? StyleUltra : StyleBlock;

  // RamStyle is a packed string of 8 bits per character; compare it at one common width.
  localparam int unsigned NameBits = 256;
  localparam bit [NameBits-1:0] StyleName = NameBits'(RamStyle);
  localparam int unsigned Style =
      StyleName == NameBits'("auto") ? AutoStyle :
      StyleName == NameBits'("registers") ? StyleRegisters :
      StyleName == NameBits'("distributed") ? StyleDistributed :
      StyleName == NameBits'("block") ? StyleBlock :
      StyleName == NameBits'("ultra") ? StyleUltra : StyleUnknown;

  localparam int unsigned CountWidth = $clog2(Depth + 1);
  localparam int unsigned AddrWidth = Depth > 1 ? $clog2(Depth) : 1;
  localparam bit [AddrWidth-1:0] LastAddr = AddrWidth'(Depth - 1);
  localparam bit [CountWidth-1:0] FullCount = CountWidth'(Depth);

  if (Width < 1) begin : gen_bad_width
    $fatal(1, "st_fifo: Width must be >= 1");
  end
  if (Depth < 1) begin : gen_bad_depth
    $fatal(1, "st_fifo: Depth must be >= 1");
  end
  if (LimitPort == 0) begin : gen_no_limit
    wire unused_limit = ^limit_i;
  end
  if (Style == StyleUnknown) begin : gen_bad_style
    $fatal(1, "st_fifo: RamStyle must be auto, registers, distributed, block or ultra");
  end

  // ---------------------------------------------------------------------------------------
  // Occupancy, shared by both memory organisations
  // ---------------------------------------------------------------------------------------
  wire push = valid_i && ready_o;
  wire pop = valid_o && ready_i;

  logic [CountWidth-1:0] count_q, count_d, max_count_q;
  logic full_q;

  always_comb begin
    count_d = count_q;
    if (push && !pop) count_d = count_q + 1'b1;
    if (pop && !push) count_d = count_q - 1'b1;
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      count_q <= '0;
      max_count_q <= '0;
      full_q <= 1'b0;
    end else begin
      count_q <= count_d;
      // count_q moves by at most one per cycle and never exceeds max_count_q, so the
      // high-water mark rises exactly when a push without a pop happens at the mark.
      if (push && !pop && count_q == max_count_q) max_count_q <= count_d;
      // Full at Depth tokens, or at limit_i in a search build. Without the limit, full_q is
      // count_q == FullCount decided from count_q, not from count_d: the compare runs beside
      // the counter's adder instead of after it (docs/logic-depth.md), same cycle for cycle.
      if (LimitPort != 0) full_q <= count_d >= limit_i;
      else if (push && !pop) full_q <= count_q == FullCount - 1'b1;
      else if (pop && !push) full_q <= 1'b0;
    end
  end

  assign ready_o = !full_q;
  assign count_o = count_q;
  assign max_count_o = max_count_q;

  // Ring-buffer pointers step through 0 .. Depth-1.
  function automatic [AddrWidth-1:0] next_addr(input logic [AddrWidth-1:0] addr);
    next_addr = addr == LastAddr ? '0 : addr + 1'b1;
  endfunction

  if (Style == StyleRegisters || Style == StyleDistributed) begin : gen_async_read
    // -------------------------------------------------------------------------------------
    // Asynchronous-read memory: data_o is the entry at the read pointer.
    // -------------------------------------------------------------------------------------
    logic [AddrWidth-1:0] wr_addr_q, rd_addr_q;
    logic not_empty_q;
    logic [Width-1:0] rd_data;

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        wr_addr_q <= '0;
        rd_addr_q <= '0;
        not_empty_q <= 1'b0;
      end else begin
        if (push) wr_addr_q <= next_addr(wr_addr_q);
        if (pop) rd_addr_q <= next_addr(rd_addr_q);
        not_empty_q <= count_d != '0;
      end
    end

    if (Style == StyleRegisters) begin : gen_registers
      (* ram_style = "registers" *) logic [Width-1:0] mem[Depth];
      always_ff @(posedge clk_i) begin
        if (push) mem[wr_addr_q] <= data_i;
      end
      assign rd_data = mem[rd_addr_q];
    end else begin : gen_distributed
      (* ram_style = "distributed" *) logic [Width-1:0] mem[Depth];
      always_ff @(posedge clk_i) begin
        if (push) mem[wr_addr_q] <= data_i;
      end
      assign rd_data = mem[rd_addr_q];
    end

    assign valid_o = not_empty_q;
    assign data_o = rd_data;

  end else begin : gen_sync_read
    // -------------------------------------------------------------------------------------
    // Synchronous-read RAM -> RAM output register (rd_*) -> two-entry prefetch register
    // (pf_*; entry 0 drives data_o). Tokens flow in order: prefetch entries, then the RAM
    // output register, then the RAM from its read pointer.
    // -------------------------------------------------------------------------------------
    logic [AddrWidth-1:0] wr_addr_q, rd_addr_q;
    logic [CountWidth-1:0] ram_count_q;  // tokens in the RAM not yet read out
    logic rd_valid_q;  // the RAM output register holds a token
    logic [Width-1:0] rd_data_q;
    logic [1:0] pf_count_q;  // prefetch entries in use, 0..2
    logic [Width-1:0] pf0_q, pf1_q;

    // Prefetch entries left after this cycle's pop, then the two possible arrivals in order:
    // the token in the RAM output register, then the input token (bypassing an empty RAM).
    wire [1:0] pf_after_pop = pf_count_q - {1'b0, pop};
    wire rd_move = rd_valid_q && pf_after_pop != 2'd2;
    wire [1:0] pf_after_rd = pf_after_pop + {1'b0, rd_move};
    wire bypass = push && ram_count_q == '0 && pf_after_rd != 2'd2;
    wire ram_write = push && !bypass;
    wire ram_read = ram_count_q != '0 && (!rd_valid_q || rd_move);
    wire [1:0] pf_count_d = pf_after_rd + {1'b0, bypass};

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        wr_addr_q <= '0;
        rd_addr_q <= '0;
        ram_count_q <= '0;
        rd_valid_q <= 1'b0;
        pf_count_q <= '0;
      end else begin
        if (ram_write) wr_addr_q <= next_addr(wr_addr_q);
        if (ram_read) rd_addr_q <= next_addr(rd_addr_q);
        if (ram_write && !ram_read) ram_count_q <= ram_count_q + 1'b1;
        if (ram_read && !ram_write) ram_count_q <= ram_count_q - 1'b1;
        if (ram_read) rd_valid_q <= 1'b1;
        else if (rd_move) rd_valid_q <= 1'b0;
        pf_count_q <= pf_count_d;
      end
    end

    if (Style == StyleBlock) begin : gen_block
      (* ram_style = "block" *) logic [Width-1:0] mem[Depth];
      always_ff @(posedge clk_i) begin
        if (ram_write) mem[wr_addr_q] <= data_i;
        if (ram_read) rd_data_q <= mem[rd_addr_q];
      end
    end else begin : gen_ultra
      (* ram_style = "ultra" *) logic [Width-1:0] mem[Depth];
      always_ff @(posedge clk_i) begin
        if (ram_write) mem[wr_addr_q] <= data_i;
        if (ram_read) rd_data_q <= mem[rd_addr_q];
      end
    end

    // Prefetch payload (not reset): the first arrival fills the first free entry after the
    // pop, a second arrival (the input behind the RAM output register) the one after it.
    wire [Width-1:0] first_arrival = rd_move ? rd_data_q : data_i;
    always_ff @(posedge clk_i) begin
      unique case (pf_after_pop)
        2'd0: begin
          pf0_q <= first_arrival;
          pf1_q <= data_i;
        end
        2'd1: begin
          if (pop) pf0_q <= pf1_q;
          pf1_q <= first_arrival;
        end
        default: ;
      endcase
    end

    assign valid_o = pf_count_q != 2'd0;
    assign data_o = pf0_q;

`ifndef SYNTHESIS
    // The three places a token can be add up to the occupancy.
    always_ff @(posedge clk_i) begin
      if (rst_ni) begin
        assert (count_q == ram_count_q + CountWidth'(rd_valid_q) + CountWidth'(pf_count_q));
        assert (pf_count_q <= 2'd2);
      end
    end
`endif
  end

`ifndef SYNTHESIS
  // Never more than Depth tokens inside; never accept when full.
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      // Constant when Depth + 1 is a power of two (count_q cannot exceed Depth at all).
      /* verilator lint_off CMPCONST */
      assert (count_q <= FullCount);
      /* verilator lint_on CMPCONST */
      if (count_q == FullCount) assert (!ready_o);
      if (LimitPort != 0) begin
        // Constant when Depth + 1 is a power of two (limit_i cannot exceed Depth at all).
        /* verilator lint_off CMPCONST */
        assert (limit_i >= 1 && limit_i <= FullCount);
        /* verilator lint_on CMPCONST */
        assert (count_q <= limit_i);
        if (count_q == limit_i) assert (!ready_o);
      end
    end
  end
`endif

endmodule

`default_nettype wire
