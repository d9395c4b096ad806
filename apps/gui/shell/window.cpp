#include "shell/window.h"

// glad declares the OpenGL API and must come before GLFW, which would include the system's GL.
#include <glad/gl.h>

#include <GLFW/glfw3.h>
#include <algorithm>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "shell/fonts.h"
#include "shell/theme.h"

namespace cudalab::gui {

namespace {
std::string g_glfw_error;
bool g_input = true;  // input arrived since the last wait_for_input()
std::vector<KeyPress> g_keys;
void on_glfw_error(int code, const char* message) {
    g_glfw_error = message ? message : ("GLFW error " + std::to_string(code));
}
}  // namespace

namespace {
// The app's icon, drawn here rather than shipped: the toolbar's mark, a 3 x 3 grid of blocks with
// the middle one lit, at 48 x 48.
void set_icon(GLFWwindow* window) {
    constexpr int size = 48, cell = 12, gap = 3, margin = 3;
    std::vector<unsigned char> px(std::size_t(size) * size * 4, 0);
    for (int by = 0; by < 3; ++by)
        for (int bx = 0; bx < 3; ++bx) {
            const bool lit = bx == 1 && by == 1;
            const unsigned char r = lit ? 0x76 : 0x4a, g = lit ? 0xb9 : 0x52, b = lit ? 0x00 : 0x66;
            for (int y = 0; y < cell; ++y)
                for (int x = 0; x < cell; ++x) {
                    const int px_x = margin + bx * (cell + gap) + x,
                              px_y = margin + by * (cell + gap) + y;
                    unsigned char* p = &px[(std::size_t(px_y) * size + std::size_t(px_x)) * 4];
                    p[0] = r;
                    p[1] = g;
                    p[2] = b;
                    p[3] = 255;
                }
        }
    GLFWimage image{size, size, px.data()};
    glfwSetWindowIcon(window, 1, &image);
}
}  // namespace

bool display_available() {
    const char* x = std::getenv("DISPLAY");
    const char* w = std::getenv("WAYLAND_DISPLAY");
    return (x && *x) || (w && *w);
}

Window::~Window() { close(); }

bool Window::open(const WindowOptions& options, std::string* why) {
    if (!display_available()) {
        *why = "no display (neither DISPLAY nor WAYLAND_DISPLAY is set)";
        return false;
    }
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        *why = "no display: GLFW could not start (" + g_glfw_error + ")";
        return false;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    window_ =
        glfwCreateWindow(options.width, options.height, options.title.c_str(), nullptr, nullptr);
    if (!window_) {
        *why = "could not open an OpenGL 3.3 core window (" + g_glfw_error + ")";
        glfwTerminate();
        return false;
    }
    set_icon(window_);
    {
        float xs = 1, ys = 1;
        glfwGetWindowContentScale(window_, &xs, &ys);
        const float k = options.scale > 0 ? options.scale : std::max(1.0f, xs);
        glfwSetWindowSizeLimits(window_, int(float(options.min_width) * k),
                                int(float(options.min_height) * k), GLFW_DONT_CARE, GLFW_DONT_CARE);
    }
    glfwMakeContextCurrent(window_);
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress))) {
        *why = "could not load the OpenGL 3.3 functions";
        glfwDestroyWindow(window_);
        window_ = nullptr;
        glfwTerminate();
        return false;
    }
    glfwSwapInterval(options.vsync ? 1 : 0);
    // Note any input, so an idle app can skip frames. Installed before ImGui's backend, which
    // chains to these.
    glfwSetCursorPosCallback(window_, [](GLFWwindow*, double, double) { g_input = true; });
    glfwSetMouseButtonCallback(window_, [](GLFWwindow*, int, int, int) { g_input = true; });
    glfwSetScrollCallback(window_, [](GLFWwindow*, double, double) { g_input = true; });
    glfwSetKeyCallback(window_, [](GLFWwindow*, int key, int, int action, int mods) {
        g_input = true;
        if (action != GLFW_RELEASE && g_keys.size() < 256) g_keys.push_back({key, mods});
    });
    glfwSetCharCallback(window_, [](GLFWwindow*, unsigned) { g_input = true; });
    glfwSetWindowFocusCallback(window_, [](GLFWwindow*, int) { g_input = true; });
    glfwSetCursorEnterCallback(window_, [](GLFWwindow*, int) { g_input = true; });
    glfwSetFramebufferSizeCallback(window_, [](GLFWwindow*, int, int) { g_input = true; });
    glfwSetWindowRefreshCallback(window_, [](GLFWwindow*) { g_input = true; });

    float sx = 1, sy = 1;
    glfwGetWindowContentScale(window_, &sx, &sy);
    scale_ = options.scale > 0 ? options.scale : std::max(1.0f, std::max(sx, sy));

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    imgui_ = true;
    ImGuiIO& io = ImGui::GetIO();
    ini_path_ = options.ini_path;
    io.IniFilename = ini_path_.empty() ? nullptr : ini_path_.c_str();
    // No keyboard navigation: Space, arrows and digits are the app's shortcuts (app.cpp).
    io.ConfigWindowsMoveFromTitleBarOnly = true;
    std::string warning;
    if (!load_fonts(scale_, &warning)) std::fprintf(stderr, "%s\n", warning.c_str());
    apply_style(scale_);
    ImGui_ImplGlfw_InitForOpenGL(window_, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    return true;
}

void Window::close() {
    if (imgui_) {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext();
        imgui_ = false;
    }
    if (window_) {
        glfwDestroyWindow(window_);
        window_ = nullptr;
        glfwTerminate();
    }
}

bool Window::should_close() const { return glfwWindowShouldClose(window_); }
void Window::request_close() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }

bool Window::wait_for_input(double seconds) {
    if (seconds > 0) glfwWaitEventsTimeout(seconds);
    else glfwPollEvents();
    const bool any = g_input;
    g_input = false;
    return any;
}

std::vector<KeyPress> Window::take_key_presses() {
    std::vector<KeyPress> keys;
    keys.swap(g_keys);
    return keys;
}

void Window::begin_frame() {
    glfwPollEvents();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
}

void Window::end_frame() {
    ImGui::Render();
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    glViewport(0, 0, w, h);
    const ImU32 bg = colors::background;
    glClearColor(float(bg & 0xFF) / 255.f, float((bg >> 8) & 0xFF) / 255.f,
                 float((bg >> 16) & 0xFF) / 255.f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Window::present() { glfwSwapBuffers(window_); }
void Window::finish() { glFinish(); }
int Window::last_vertex_count() const {
    return ImGui::GetDrawData() ? ImGui::GetDrawData()->TotalVtxCount : 0;
}

bool Window::save_png(const std::string& path, std::string* error, const float* crop) const {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    if (w <= 0 || h <= 0) {
        *error = "the window has no size";
        return false;
    }
    int ww = 0, wh = 0;
    glfwGetWindowSize(window_, &ww, &wh);
    // The part kept, in framebuffer pixels (a scaled display has more of them than coordinates).
    int cx = 0, cy = 0, cw = w, ch = h;
    if (crop && ww > 0 && wh > 0) {
        const float sx = float(w) / float(ww), sy = float(h) / float(wh);
        cx = std::clamp(int(crop[0] * sx), 0, w - 1);
        cy = std::clamp(int(crop[1] * sy), 0, h - 1);
        cw = std::clamp(int(crop[2] * sx), 1, w - cx);
        ch = std::clamp(int(crop[3] * sy), 1, h - cy);
    }
    std::vector<unsigned char> rgba(std::size_t(w) * std::size_t(h) * 4);
    glFinish();
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    // OpenGL's rows run bottom-up; PNG's top-down. Alpha is dropped (the frame is opaque).
    std::vector<unsigned char> rgb(std::size_t(cw) * std::size_t(ch) * 3);
    for (int y = 0; y < ch; ++y)
        for (int x = 0; x < cw; ++x)
            for (int c = 0; c < 3; ++c)
                rgb[(std::size_t(y) * std::size_t(cw) + std::size_t(x)) * 3 + std::size_t(c)] =
                    rgba[(std::size_t(h - 1 - (cy + y)) * std::size_t(w) + std::size_t(cx + x)) *
                             4 +
                         std::size_t(c)];
    if (!stbi_write_png(path.c_str(), cw, ch, 3, rgb.data(), cw * 3)) {
        *error = "could not write " + path;
        return false;
    }
    return true;
}

std::string Window::renderer() const {
    const GLubyte* r = glGetString(GL_RENDERER);
    const GLubyte* v = glGetString(GL_VERSION);
    return std::string(r ? reinterpret_cast<const char*>(r) : "?") + ", OpenGL " +
           (v ? reinterpret_cast<const char*>(v) : "?");
}

}  // namespace cudalab::gui
