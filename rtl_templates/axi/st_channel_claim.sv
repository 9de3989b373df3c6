// st_channel_claim: which HBM pseudo-channels a read master is reading from, for the masters
// that share them to stand back. It watches one AXI4 read master (its AR and R handshakes) whose
// bursts fall on channels FirstChannel .. FirstChannel + Channels - 1 (a channel is
// 2^ChannelShift bytes of the global address space) and raises claim_o[k] while a burst on
// channel FirstChannel + k waits in the master's AR register or is in flight (from its AR
// handshake to its last R beat). The LLM top uses it for a KV cache slice whose kv-head blocks
// lie on channels of their own (docs/decisions.md): the GEMV engine's weight DMA of such a
// channel loads no new burst (st_axi_read_dma's hold_i) while the channel is claimed, so the
// K/V rows attention waits for take the channel's bandwidth first and the weights refill their
// prefetch FIFO when the rows do not want it.
//
// The master uses one ID, so its bursts complete in issue order: a FIFO of MaxOutstanding channel
// tags (the oldest burst's at the head) and a counter of bursts in flight per channel. A burst
// outside the channels claims nothing.
`default_nettype none

module st_channel_claim #(
    /// AXI address width in bits.
    parameter int unsigned AddrWidth = 64,
    /// log2 of a pseudo-channel's bytes (29: 512 MB, the U55C's).
    parameter int unsigned ChannelShift = 29,
    /// The first channel the master reads from.
    parameter int unsigned FirstChannel = 0,
    /// Channels claimed (1 .. 16).
    parameter int unsigned Channels = 2,
    /// The master's read bursts in flight at most (>= 1).
    parameter int unsigned MaxOutstanding = 4
) (
    input  wire                  clk_i,
    input  wire                  rst_ni,        // synchronous, active low
    input  wire                  ar_valid_i,
    input  wire                  ar_ready_i,
    input  wire  [AddrWidth-1:0] ar_addr_i,
    input  wire                  r_valid_i,
    input  wire                  r_ready_i,
    input  wire                  r_last_i,
    output logic [ Channels-1:0] claim_o
);

  localparam int unsigned TagWidth = Channels > 1 ? $clog2(Channels) : 1;
  localparam int unsigned CountWidth = $clog2(MaxOutstanding + 1);
  localparam int unsigned PtrWidth = MaxOutstanding > 1 ? $clog2(MaxOutstanding) : 1;

  if (Channels < 1 || Channels > 16) begin : gen_bad_channels
    $fatal(1, "st_channel_claim: Channels must be 1 .. 16");
  end
  if (ChannelShift >= AddrWidth) begin : gen_bad_shift
    $fatal(1, "st_channel_claim: ChannelShift must be below AddrWidth");
  end

  // The channel of the burst in the AR register, relative to FirstChannel.
  localparam int unsigned ChannelBits = AddrWidth - ChannelShift;
  localparam logic [ChannelBits-1:0] First = ChannelBits'(FirstChannel);
  localparam int unsigned LastChannel = FirstChannel + Channels - 1;
  localparam logic [ChannelBits-1:0] Last = ChannelBits'(LastChannel);
  /* verilator lint_off UNUSEDSIGNAL */ // the offset inside a channel
  wire [AddrWidth-1:0] ar_addr = ar_addr_i;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [ChannelBits-1:0] ar_channel = ar_addr[AddrWidth-1:ChannelShift];
  /* verilator lint_off UNSIGNED */ // FirstChannel 0
  wire ar_in_range = ar_channel >= First && ar_channel <= Last;
  /* verilator lint_on UNSIGNED */
  // In range, the channel less FirstChannel is below Channels: its low TagWidth bits.
  wire [TagWidth-1:0] ar_tag = ar_channel[TagWidth-1:0] - TagWidth'(FirstChannel);

  // Per burst in flight: its channel's tag and whether it is one of the channels.
  logic [TagWidth-1:0] tags_q[MaxOutstanding];
  logic [MaxOutstanding-1:0] claimed_q;
  logic [PtrWidth-1:0] head_q, tail_q;
  logic [CountWidth-1:0] inflight_q[Channels];

  wire issue = ar_valid_i && ar_ready_i;
  wire retire = r_valid_i && r_ready_i && r_last_i;
  wire [TagWidth-1:0] retire_tag = tags_q[head_q];
  wire retire_claimed = claimed_q[head_q];

  localparam logic [PtrWidth-1:0] LastPtr = PtrWidth'(MaxOutstanding - 1);
  wire [PtrWidth-1:0] head_next = head_q == LastPtr ? '0 : head_q + 1'b1;
  wire [PtrWidth-1:0] tail_next = tail_q == LastPtr ? '0 : tail_q + 1'b1;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      head_q <= '0;
      tail_q <= '0;
    end else begin
      if (issue) begin
        // A decoded write: Yosys turns `tags_q[tail_q] <=` into 32-bit index arithmetic.
        for (int i = 0; i < MaxOutstanding; i++) begin
          if (tail_q == PtrWidth'(i)) begin
            tags_q[i] <= ar_tag;
            claimed_q[i] <= ar_in_range;
          end
        end
        tail_q <= tail_next;
      end
      if (retire) head_q <= head_next;
    end
  end

  for (genvar k = 0; k < Channels; k++) begin : g_channel
    wire up = issue && ar_in_range && ar_tag == TagWidth'(k);
    wire down = retire && retire_claimed && retire_tag == TagWidth'(k);
    // The step (+1, -1 or none) selects between increment and decrement computed beside it,
    // not two adders after the tag compares (docs/logic-depth.md).
    wire [CountWidth-1:0] inflight_inc = inflight_q[k] + 1'b1;
    wire [CountWidth-1:0] inflight_dec = inflight_q[k] - 1'b1;
    always_ff @(posedge clk_i) begin
      if (!rst_ni) inflight_q[k] <= '0;
      else if (up && !down) inflight_q[k] <= inflight_inc;
      else if (down && !up) inflight_q[k] <= inflight_dec;
    end
    assign claim_o[k] = inflight_q[k] != '0 || (ar_valid_i && ar_in_range && ar_tag == TagWidth'(k));
  end


endmodule

`default_nettype wire
