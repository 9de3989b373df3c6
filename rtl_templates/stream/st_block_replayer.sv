// st_block_replayer: buffers a block of BlockLen tokens and emits it Repeats times.
//
// The input stream is cut into blocks of BlockLen tokens. Each block is stored, then sent on
// the output Repeats times in order (token 0 .. BlockLen-1, Repeats times) before the next block.
// For re-streamed data: a tensor tile that an outer loop reads again, fetched from memory once.
//
// Double-buffered: the memory holds two blocks (ping-pong banks), so the next block is written
// while the current one is replayed. A bank is handed to the reader when its last token is
// written and back to the writer when its last token has been read for the last time. With the
// producer keeping up (one token per cycle) the output sends one token per cycle without a gap
// between blocks: the first token leaves BlockLen + 1 cycles after the first token enters (a
// whole block is written, then the memory's read takes a cycle), and every further cycle sends
// one. While the reader replays, the writer stalls once it has filled the other bank.
//
// The memory (2 * BlockLen words of Width bits, one write and one registered read port) is not
// reset; its implementation is chosen by size through (* ram_style *): registers for at most 8
// words, LUTRAM up to 256 words of at most 8 Kbit in all, block RAM beyond. data_o comes straight
// from the memory's read register; valid_o/ready_o come from flops. The read enable depends
// combinationally on ready_i (a read is issued when the output register is empty or leaving).
`default_nettype none

module st_block_replayer #(
    /// Payload width in bits (>= 1).
    parameter int unsigned Width = 32,
    /// Tokens per block (>= 1).
    parameter int unsigned BlockLen = 64,
    /// How many times each block is sent (>= 1).
    parameter int unsigned Repeats = 2
) (
    input  wire              clk_i,
    input  wire              rst_ni,   // synchronous, active low
    // upstream
    input  wire              valid_i,
    output logic             ready_o,
    input  wire  [Width-1:0] data_i,
    // downstream
    output logic             valid_o,
    input  wire              ready_i,
    output logic [Width-1:0] data_o
);

  if (Width < 1) begin : gen_bad_width
    $fatal(1, "st_block_replayer: Width must be >= 1");
  end
  if (BlockLen < 1) begin : gen_bad_block_len
    $fatal(1, "st_block_replayer: BlockLen must be >= 1");
  end
  if (Repeats < 1) begin : gen_bad_repeats
    $fatal(1, "st_block_replayer: Repeats must be >= 1");
  end

  // Bank 0 is words [0, BlockLen), bank 1 is words [BlockLen, 2*BlockLen).
  localparam int unsigned Depth = 2 * BlockLen;
  localparam int unsigned AddrWidth = $clog2(Depth);
  localparam int unsigned RepeatWidth = (Repeats > 1) ? $clog2(Repeats) : 1;
  // Used only in an attribute, which the linter does not read: it would call RamStyle unused.
  /* verilator lint_off UNUSEDPARAM */
  localparam RamStyle = (Depth <= 8) ? "registers"
                      : (Depth <= 256 && Depth * Width <= 8192) ? "distributed" : "block";
  /* verilator lint_on UNUSEDPARAM */

  (* ram_style = RamStyle *) logic [Width-1:0] mem_q [Depth];

  // Banks holding a complete block that is not yet fully replayed.
  logic [1:0] full_q;

  // Writer: the next word to write and the bank it lies in.
  logic [AddrWidth-1:0] wr_addr_q;
  logic wr_bank_q;
  // Reader: the next word to read, its bank, and how many times this block was already sent.
  logic [AddrWidth-1:0] rd_addr_q;
  logic rd_bank_q;
  logic [RepeatWidth-1:0] rd_repeat_q;
  // The memory's read register, which is the output register.
  logic out_valid_q;
  logic [Width-1:0] out_q;

  wire wr_fire = valid_i && ready_o;
  wire wr_block_end = (wr_addr_q == AddrWidth'(BlockLen - 1)) ||
                      (wr_addr_q == AddrWidth'(Depth - 1));
  wire rd_issue = full_q[rd_bank_q] && (!out_valid_q || ready_i);
  wire rd_block_end = (rd_addr_q == AddrWidth'(BlockLen - 1)) ||
                      (rd_addr_q == AddrWidth'(Depth - 1));
  wire rd_last_repeat = (rd_repeat_q == RepeatWidth'(Repeats - 1));
  // Where the current and the other bank start.
  wire [AddrWidth-1:0] rd_bank_base = rd_bank_q ? AddrWidth'(BlockLen) : '0;
  wire [AddrWidth-1:0] rd_other_base = rd_bank_q ? '0 : AddrWidth'(BlockLen);

  assign ready_o = !full_q[wr_bank_q];
  assign valid_o = out_valid_q;
  assign data_o  = out_q;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      full_q      <= '0;
      wr_addr_q   <= '0;
      wr_bank_q   <= 1'b0;
      rd_addr_q   <= '0;
      rd_bank_q   <= 1'b0;
      rd_repeat_q <= '0;
      out_valid_q <= 1'b0;
    end else begin
      if (wr_fire) begin
        wr_addr_q <= (wr_addr_q == AddrWidth'(Depth - 1)) ? '0 : wr_addr_q + 1'b1;
        if (wr_block_end) begin
          full_q[wr_bank_q] <= 1'b1;
          wr_bank_q <= !wr_bank_q;
        end
      end
      if (rd_issue) begin
        if (!rd_block_end) begin
          rd_addr_q <= rd_addr_q + 1'b1;
        end else if (!rd_last_repeat) begin
          rd_addr_q   <= rd_bank_base;
          rd_repeat_q <= rd_repeat_q + 1'b1;
        end else begin
          // The block has been sent Repeats times: hand its bank back to the writer.
          rd_addr_q   <= rd_other_base;
          rd_repeat_q <= '0;
          rd_bank_q   <= !rd_bank_q;
          full_q[rd_bank_q] <= 1'b0;
        end
      end
      if (rd_issue) out_valid_q <= 1'b1;
      else if (ready_i) out_valid_q <= 1'b0;
    end
  end

  // Memory and read register: not reset.
  always_ff @(posedge clk_i) begin
    if (wr_fire) mem_q[wr_addr_q] <= data_i;
  end
  always_ff @(posedge clk_i) begin
    if (rd_issue) out_q <= mem_q[rd_addr_q];
  end

`ifndef SYNTHESIS
  // A bank is written only while it belongs to the writer and read only while it belongs to the
  // reader; the write and read pointers stay inside their banks.
  always_ff @(posedge clk_i) begin
    if (rst_ni && wr_fire) assert (!full_q[wr_bank_q]);
    if (rst_ni && rd_issue) assert (full_q[rd_bank_q]);
    if (rst_ni) assert (wr_bank_q == (wr_addr_q >= AddrWidth'(BlockLen)));
    if (rst_ni) assert (rd_bank_q == (rd_addr_q >= AddrWidth'(BlockLen)));
  end
`endif

endmodule

`default_nettype wire
