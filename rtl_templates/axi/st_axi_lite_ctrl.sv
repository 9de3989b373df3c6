// st_axi_lite_ctrl: the AXI4-Lite control slave of a Vitis RTL kernel (ap_ctrl_hs protocol),
// with the register map Vitis HLS generates, so that XRT and the generated host header drive it
// like an HLS kernel.
//
// Register map (byte addresses, 32-bit registers, s_axi_control):
//   0x00 control   bit 0 ap_start     R/W  set by a host write of 1 (a write of 0 does nothing);
//                                          cleared when the kernel asserts ap_ready_i, unless
//                                          auto_restart is set (then it stays set: the kernel
//                                          restarts after every run)
//                  bit 1 ap_done      R    set when the kernel asserts ap_done_i; cleared by a
//                                          read of 0x00 (clear-on-read; a done in the same
//                                          cycle as the read wins and stays set)
//                  bit 2 ap_idle      R    ap_idle_i as sampled by the read
//                  bit 3 ap_ready     R    set when the kernel asserts ap_ready_i; clear-on-read
//                  bit 7 auto_restart R/W
//   0x04 GIE       bit 0 global interrupt enable
//   0x08 IER       bit 0 interrupt on ap_done, bit 1 interrupt on ap_ready
//   0x0C ISR       bit 0 ap_done seen, bit 1 ap_ready seen; each bit is set by its event while
//                  its IER bit is set, and toggled by a host write of 1 (write 1 to clear)
//   0x10 ...       user arguments, in order. Argument i starts at byte offset arg_offset(i):
//                    arg_offset(0)   = 0x10
//                    arg_offset(i+1) = arg_offset(i) + (argument i is 64-bit ? 12 : 8)
//                  A 64-bit argument (a pointer) takes three words: low half at arg_offset(i),
//                  high half at +4, and a reserved word at +8. A 32-bit argument (a scalar)
//                  takes two: its value at arg_offset(i) and a reserved word at +4. This is the
//                  layout Vitis HLS uses; the compiler emits the same table for the Vitis
//                  kernel.xml and the host header.
//   interrupt = GIE & |(IER & ISR).
// Reserved words, unmapped addresses and the read-only bits read 0 / ignore writes; every
// response is OKAY. WSTRB is honoured byte by byte. AW and W are accepted in either order or
// together; a write takes effect at the clock edge where the later of the two is accepted, and a
// read samples the registers at the edge where AR is accepted. One transaction is outstanding per
// direction: awready/wready stay low until the write response is accepted, arready until the read
// data is accepted. bvalid/rvalid and rdata are registered; the read data takes two cycles, the
// argument words ORed in groups of ReadGroup at the AR edge and the groups the cycle after
// (docs/logic-depth.md), so rvalid rises two cycles after the AR handshake.
`default_nettype none

module st_axi_lite_ctrl #(
    /// Width of the byte address on s_axi_control (the register window is 2**AddrWidth bytes;
    /// Vitis allows at most 16, i.e. 64 KB). Must hold every argument register.
    parameter int unsigned AddrWidth = 12,
    /// Number of user arguments (1..64).
    parameter int unsigned NumArgs = 1,
    /// Bit i set: argument i (0..31) is a 64-bit pointer (12-byte stride); clear: a 32-bit
    /// scalar (8-byte stride). Bits at and above NumArgs must be 0.
    parameter int unsigned ArgIs64 = 0,
    /// The same for arguments 32..63 (bit i: argument 32 + i).
    parameter int unsigned ArgIs64Hi = 0
) (
    input  wire                   clk_i,
    input  wire                   rst_ni,                 // synchronous, active low
    // AXI4-Lite slave: write address, write data, write response
    input  wire   [AddrWidth-1:0] s_axi_control_awaddr,
    input  wire                   s_axi_control_awvalid,
    output logic                  s_axi_control_awready,
    input  wire   [         31:0] s_axi_control_wdata,
    input  wire   [          3:0] s_axi_control_wstrb,
    input  wire                   s_axi_control_wvalid,
    output logic                  s_axi_control_wready,
    output logic  [          1:0] s_axi_control_bresp,
    output logic                  s_axi_control_bvalid,
    input  wire                   s_axi_control_bready,
    // AXI4-Lite slave: read address, read data
    input  wire   [AddrWidth-1:0] s_axi_control_araddr,
    input  wire                   s_axi_control_arvalid,
    output logic                  s_axi_control_arready,
    output logic  [         31:0] s_axi_control_rdata,
    output logic  [          1:0] s_axi_control_rresp,
    output logic                  s_axi_control_rvalid,
    input  wire                   s_axi_control_rready,
    // interrupt to the shell (the name Vitis requires, which is also a C++ word)
    /* verilator lint_off SYMRSVDWORD */
    output logic                  interrupt,
    /* verilator lint_on SYMRSVDWORD */
    // ap_ctrl_hs towards the kernel
    output logic                  ap_start_o,
    input  wire                   ap_done_i,
    input  wire                   ap_idle_i,
    input  wire                   ap_ready_i,
    // argument i at [i*64 +: 64]; the high half of a 32-bit argument is 0
    output logic [NumArgs*64-1:0] args_o
);

  // ---------------------------------------------------------------------------------------------
  // The argument offset rule (see the header); evaluated only at elaboration time.
  function automatic arg_is_64(input integer index);
    arg_is_64 = index < 32 ? ArgIs64[index] : ArgIs64Hi[index-32];
  endfunction

  function automatic [31:0] arg_offset(input integer index);
    integer j;
    arg_offset = 32'h10;
    for (j = 0; j < index; j = j + 1) begin
      arg_offset = arg_offset + (arg_is_64(j) ? 32'd12 : 32'd8);
    end
  endfunction

  /// One byte past the last argument register.
  localparam int unsigned MapEnd = arg_offset(NumArgs);
  localparam int unsigned WordAddrWidth = AddrWidth - 2;

  if (NumArgs < 1 || NumArgs > 64) begin : gen_bad_num_args
    $fatal(1, "st_axi_lite_ctrl: NumArgs must be in 1..64");
  end
  if ((NumArgs < 32 && (ArgIs64 >> NumArgs) != 0) ||
      (NumArgs <= 32 && ArgIs64Hi != 0) ||
      (NumArgs > 32 && NumArgs < 64 && (ArgIs64Hi >> (NumArgs - 32)) != 0))
  begin : gen_bad_arg_is_64
    $fatal(1, "st_axi_lite_ctrl: ArgIs64/ArgIs64Hi have bits set at or above NumArgs");
  end
  if (AddrWidth < 5 || AddrWidth > 16 || MapEnd > (1 << AddrWidth)) begin : gen_bad_addr_width
    $fatal(1, "st_axi_lite_ctrl: AddrWidth must be in 5..16 and hold every argument register");
  end

  // Registers are word aligned: the byte offset of an address is ignored.
  /* verilator lint_off UNUSEDSIGNAL */
  wire [3:0] unused_byte_offset = {s_axi_control_awaddr[1:0], s_axi_control_araddr[1:0]};
  /* verilator lint_on UNUSEDSIGNAL */

  localparam logic [WordAddrWidth-1:0] CtrlWord = WordAddrWidth'(32'h00 >> 2);
  localparam logic [WordAddrWidth-1:0] GieWord = WordAddrWidth'(32'h04 >> 2);
  localparam logic [WordAddrWidth-1:0] IerWord = WordAddrWidth'(32'h08 >> 2);
  localparam logic [WordAddrWidth-1:0] IsrWord = WordAddrWidth'(32'h0C >> 2);

  // ---------------------------------------------------------------------------------------------
  // Write channel: AW and W each park in a holding register until the other arrives.
  logic                     aw_held_q, w_held_q, bvalid_q;
  logic [WordAddrWidth-1:0] awaddr_q;
  logic [             31:0] wdata_q;
  logic [              3:0] wstrb_q;

  assign s_axi_control_awready = !aw_held_q && !bvalid_q;
  assign s_axi_control_wready  = !w_held_q && !bvalid_q;
  assign s_axi_control_bvalid  = bvalid_q;
  assign s_axi_control_bresp   = 2'b00;

  wire aw_fire = s_axi_control_awvalid && s_axi_control_awready;
  wire w_fire = s_axi_control_wvalid && s_axi_control_wready;
  wire write_en = (aw_held_q || aw_fire) && (w_held_q || w_fire);

  wire [WordAddrWidth-1:0] write_word = aw_held_q ? awaddr_q : s_axi_control_awaddr[AddrWidth-1:2];
  wire [31:0] write_data = w_held_q ? wdata_q : s_axi_control_wdata;
  wire [3:0] write_strb = w_held_q ? wstrb_q : s_axi_control_wstrb;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      aw_held_q <= 1'b0;
      w_held_q  <= 1'b0;
      bvalid_q  <= 1'b0;
    end else begin
      if (write_en) begin
        aw_held_q <= 1'b0;
        w_held_q  <= 1'b0;
        bvalid_q  <= 1'b1;
      end else begin
        if (aw_fire) aw_held_q <= 1'b1;
        if (w_fire) w_held_q <= 1'b1;
        if (s_axi_control_bready) bvalid_q <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (aw_fire) awaddr_q <= s_axi_control_awaddr[AddrWidth-1:2];
    if (w_fire) begin
      wdata_q <= s_axi_control_wdata;
      wstrb_q <= s_axi_control_wstrb;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Control and interrupt registers.
  logic       ap_start_q, ap_done_q, ap_ready_q, auto_restart_q, gie_q;
  logic [1:0] ier_q, isr_q;

  wire        read_fire = s_axi_control_arvalid && s_axi_control_arready;
  wire        read_ctrl = read_fire && s_axi_control_araddr[AddrWidth-1:2] == CtrlWord;
  wire        write_ctrl = write_en && write_word == CtrlWord && write_strb[0];
  wire        write_isr = write_en && write_word == IsrWord && write_strb[0];
  wire  [1:0] kernel_event = {ap_ready_i, ap_done_i};

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      ap_start_q     <= 1'b0;
      ap_done_q      <= 1'b0;
      ap_ready_q     <= 1'b0;
      auto_restart_q <= 1'b0;
      gie_q          <= 1'b0;
      ier_q          <= 2'b00;
      isr_q          <= 2'b00;
    end else begin
      if (write_ctrl && write_data[0]) ap_start_q <= 1'b1;
      else if (ap_ready_i) ap_start_q <= auto_restart_q;

      if (ap_done_i) ap_done_q <= 1'b1;
      else if (read_ctrl) ap_done_q <= 1'b0;

      if (ap_ready_i) ap_ready_q <= 1'b1;
      else if (read_ctrl) ap_ready_q <= 1'b0;

      if (write_ctrl) auto_restart_q <= write_data[7];
      if (write_en && write_word == GieWord && write_strb[0]) gie_q <= write_data[0];
      if (write_en && write_word == IerWord && write_strb[0]) ier_q <= write_data[1:0];

      for (int b = 0; b < 2; b++) begin
        if (ier_q[b] && kernel_event[b]) isr_q[b] <= 1'b1;
        else if (write_isr) isr_q[b] <= isr_q[b] ^ write_data[b];
      end
    end
  end

  assign ap_start_o = ap_start_q;
  assign interrupt  = gie_q && |(ier_q & isr_q);

  // ---------------------------------------------------------------------------------------------
  // Argument registers: per argument a low word and, for pointers, a high word.
  logic [NumArgs*32-1:0] arg_read_lo, arg_read_hi;

  for (genvar i = 0; i < NumArgs; i++) begin : gen_arg
    localparam logic [WordAddrWidth-1:0] LoWord = WordAddrWidth'(arg_offset(i) >> 2);
    localparam logic [WordAddrWidth-1:0] HiWord = LoWord + 1'b1;
    logic [31:0] lo_q;

    always_ff @(posedge clk_i) begin
      if (!rst_ni) lo_q <= '0;
      else if (write_en && write_word == LoWord) begin
        for (int b = 0; b < 4; b++) begin
          if (write_strb[b]) lo_q[b*8+:8] <= write_data[b*8+:8];
        end
      end
    end

    assign args_o[i*64+:32] = lo_q;
    assign arg_read_lo[i*32+:32] = s_axi_control_araddr[AddrWidth-1:2] == LoWord ? lo_q : '0;

    if (arg_is_64(i)) begin : gen_hi
      logic [31:0] hi_q;
      always_ff @(posedge clk_i) begin
        if (!rst_ni) hi_q <= '0;
        else if (write_en && write_word == HiWord) begin
          for (int b = 0; b < 4; b++) begin
            if (write_strb[b]) hi_q[b*8+:8] <= write_data[b*8+:8];
          end
        end
      end
      assign args_o[i*64+32+:32] = hi_q;
      assign arg_read_hi[i*32+:32] = s_axi_control_araddr[AddrWidth-1:2] == HiWord ? hi_q : '0;
    end else begin : gen_no_hi
      assign args_o[i*64+32+:32] = '0;
      assign arg_read_hi[i*32+:32] = '0;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Read channel: at the AR handshake the addressed register is captured, as the OR of every
  // word's decoded value, into partial ORs of ReadGroup argument words each (and one of the
  // control words); the cycle after, their OR goes into rdata.
  localparam int unsigned ReadGroup = 8;
  localparam int unsigned ReadGroups = (NumArgs + ReadGroup - 1) / ReadGroup;
  logic        rpend_q, rvalid_q;
  logic [31:0] rdata_q, ctrl_word;
  logic [31:0] part_q[ReadGroups+1];

  always_comb begin
    ctrl_word = '0;
    unique case (s_axi_control_araddr[AddrWidth-1:2])
      CtrlWord: ctrl_word = {24'd0, auto_restart_q, 3'd0, ap_ready_q, ap_idle_i, ap_done_q,
                             ap_start_q};
      GieWord:  ctrl_word = {31'd0, gie_q};
      IerWord:  ctrl_word = {30'd0, ier_q};
      IsrWord:  ctrl_word = {30'd0, isr_q};
      default:  ctrl_word = '0;
    endcase
  end

  always_ff @(posedge clk_i) begin
    if (read_fire) begin
      part_q[ReadGroups] <= ctrl_word;
      // At most one argument word matches the address; the others contribute 0.
      for (int g = 0; g < ReadGroups; g++) begin
        logic [31:0] acc;
        acc = '0;
        for (int i = g * ReadGroup; i < (g + 1) * ReadGroup && i < NumArgs; i++)
          acc = acc | arg_read_lo[i*32+:32] | arg_read_hi[i*32+:32];
        part_q[g] <= acc;
      end
    end
  end

  logic [31:0] read_word;
  always_comb begin
    read_word = '0;
    for (int g = 0; g <= ReadGroups; g++) read_word = read_word | part_q[g];
  end

  assign s_axi_control_arready = !rvalid_q && !rpend_q;
  assign s_axi_control_rvalid  = rvalid_q;
  assign s_axi_control_rdata   = rdata_q;
  assign s_axi_control_rresp   = 2'b00;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      rpend_q  <= 1'b0;
      rvalid_q <= 1'b0;
    end else begin
      rpend_q <= read_fire;
      if (rpend_q) rvalid_q <= 1'b1;
      else if (s_axi_control_rready) rvalid_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rpend_q) rdata_q <= read_word;
  end

`ifndef SYNTHESIS
  // A write response never appears while an address or data beat is still parked.
  always_ff @(posedge clk_i) begin
    if (rst_ni && bvalid_q) assert (!aw_held_q && !w_held_q);
  end
`endif

endmodule

`default_nettype wire
