// The app shell, as a backend pair in the Dear ImGui manner (open / begin_frame / end_frame /
// present / close): a GLFW window with an OpenGL 3.3 core context, the glad loader, Dear ImGui
// with its GLFW and OpenGL 3 backends, the DejaVu fonts at the monitor's content scale, and
// screenshots read back from the frame just drawn.
#pragma once

#include <string>

#include <vector>

struct GLFWwindow;

namespace cudalab::gui {

// A key press as GLFW reported it. Kept in a queue so that a press and its release within one
// frame (a fast chord, a loaded machine, xdotool) still counts: ImGui 1.86 only sees key states.
struct KeyPress {
    int key = 0;   // GLFW_KEY_*
    int mods = 0;  // GLFW_MOD_*
};

struct WindowOptions {
    int width = 1600, height = 1000;  // in screen coordinates
    // The smallest the window may be made, times the UI scale: the header's lesson picker,
    // status and actions still fit side by side (apps/gui/app.cpp, draw_toolbar).
    int min_width = 960, min_height = 600;
    bool vsync = true;
    float scale = 0;  // UI scale; 0: the monitor's content scale
    std::string title = "cudalab";
    std::string ini_path;  // ImGui's settings file; empty: none
};

// True when a display server is named in the environment (DISPLAY or WAYLAND_DISPLAY).
bool display_available();

class Window {
  public:
    Window() = default;
    ~Window();
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    // False (and why) when there is no display, no OpenGL 3.3 or ImGui cannot start.
    bool open(const WindowOptions& options, std::string* why);
    void close();
    bool should_close() const;
    void request_close();

    // Waits up to `seconds` for input; true when any arrived since the last call.
    bool wait_for_input(double seconds);
    // Polls events and starts an ImGui frame.
    void begin_frame();
    // The key presses since the last call, in order.
    std::vector<KeyPress> take_key_presses();
    // Renders the ImGui frame into the back buffer.
    void end_frame();
    void present();
    // Waits until the GPU finished the frame (only for measuring where a frame's time goes).
    void finish();
    int last_vertex_count() const;
    // The back buffer as drawn by end_frame(), as a PNG.
    // `crop` (optional): x, y, width, height in window coordinates; the rest of the frame is left
    // out.
    bool save_png(const std::string& path, std::string* error, const float* crop = nullptr) const;

    float scale() const { return scale_; }
    GLFWwindow* handle() const { return window_; }
    std::string renderer() const;  // "llvmpipe (LLVM 15.0.6, 256 bits)", ...

  private:
    GLFWwindow* window_ = nullptr;
    bool imgui_ = false;
    float scale_ = 1.0f;
    std::string ini_path_;
};

}  // namespace cudalab::gui
